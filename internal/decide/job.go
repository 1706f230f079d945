package decide

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// JobMember is what one member cluster shows of a multi-cluster job: its
// member Job, if any, and the Job's pods.
type JobMember struct {
	// Ready is whether the member answers; a member that does not keeps
	// its Job as it is.
	Ready bool
	// Exists is whether the member Job exists; Parallelism and Completions
	// are then its spec (Completions nil when the job has none).
	Exists      bool
	Parallelism int32
	Completions *int32
	// Running counts the Job's pods bound to a node and not finished, and
	// Succeeded the pods that completed.
	Running   int32
	Succeeded int32
	// Pending counts the Job's pods Unschedulable in the member, since
	// PendingSince.
	Pending      int32
	PendingSince time.Time
	// Finished is whether the member Job completed or failed.
	Finished bool
}

// started reports whether the member Job ran any pod, so its share of the
// completions is bound to it.
func (m JobMember) started() bool { return m.Running > 0 || m.Succeeded > 0 }

// JobInput is everything one pass of a MultiClusterJob decides on.
type JobInput struct {
	// Workload is the job as its spec asks for it (workload.New), with its
	// parallelism as Replicas; Current and Full are set by the decision.
	Workload *placement.Workload
	// Completions is the job's spec.completions; nil when it has none.
	Completions *int32
	// Members are every known member, by name.
	Members  map[string]JobMember
	Snapshot *placement.Snapshot
	Now      time.Time
	Timing   Timing
	// Shift is the job's spec.carbonShift; nil starts it at once.
	Shift *JobShift
	// PlannedStart is status.plannedStart, the start an earlier pass chose
	// for a job with a Shift; zero when none was chosen yet.
	PlannedStart time.Time
}

// JobShare is one new member Job: its parallel pods and completions.
type JobShare struct {
	Parallelism int32
	Completions *int32
}

// JobPlan is the outcome of one pass of a MultiClusterJob.
type JobPlan struct {
	// Workload is what was placed; nil when nothing was.
	Workload *placement.Workload
	// Decision is the framework's answer; nil when nothing was placed.
	Decision *placement.Decision
	// Create are the member Jobs to create, by member.
	Create map[string]JobShare
	// Delete names the member Jobs to delete: their pods stayed
	// Unschedulable beyond the pending grace period and none ever ran, so
	// their share is placed elsewhere (Create holds it).
	Delete []string
	// Overdue names the members whose pods stayed Unschedulable beyond the
	// pending grace period.
	Overdue []string
	// Unplaced is how many parallel pods have no member Job after the plan.
	Unplaced int32
	// RequeueAfter is when to look again; zero when only a change should
	// bring the job back.
	RequeueAfter time.Duration
	// PlannedStart and StartReason are the start chosen for a job with a
	// Shift, and why (status.plannedStart); Waiting says the job waits for
	// it: nothing is placed, and nothing counts as unplaced.
	PlannedStart time.Time
	StartReason  string
	Waiting      bool
	// ExpectedGrams and BaselineGrams are the carbon scheduler's forecast
	// emissions (gCO2e) of the job at PlannedStart and of starting at once
	// in the best-scored cluster; set with StartReason, zero when no
	// intensity was known.
	ExpectedGrams, BaselineGrams float64
}

// Job decides where the parallel pods of a MultiClusterJob that have no
// member Job yet go: at first all of them, later those that found no
// cluster and those of a member Job whose pods stayed Unschedulable beyond
// the pending grace period without ever running (that member Job is
// deleted and its share placed elsewhere). A member Job's completions
// cannot change once it exists, so a member Job that ran a pod keeps its
// share, and new member Jobs go to members without one. When the job has
// completions, new member Jobs share what no member Job holds yet in
// proportion to their parallel pods.
func Job(ctx context.Context, placer Placer, in JobInput) (*JobPlan, error) {
	p := &JobPlan{Create: map[string]JobShare{}}
	w := *in.Workload
	w.Current, w.Full = map[string]int32{}, map[string]bool{}
	var kept, keptCompletions int32
	for _, name := range slices.Sorted(maps.Keys(in.Members)) {
		m := in.Members[name]
		// A member that is not ready keeps its Job: what it shows is stale.
		late := m.Ready && m.Pending > 0 && in.Now.Sub(m.PendingSince) >= in.Timing.PendingGrace
		if late {
			p.Overdue = append(p.Overdue, name)
			w.Full[name] = true
		}
		if !m.Exists {
			continue
		}
		if late && !m.started() {
			p.Delete = append(p.Delete, name)
			continue
		}
		// A member Job's share is fixed: it keeps its pods and gets no more.
		w.Current[name], w.Full[name] = m.Parallelism, true
		kept += m.Parallelism
		if m.Completions != nil {
			keptCompletions += *m.Completions
		}
	}
	want := in.Workload.Replicas - kept
	pool := int32(-1) // no completions: shares follow parallelism alone
	if in.Completions != nil {
		pool = max(*in.Completions-keptCompletions, 0)
		want = min(want, pool)
	}
	p.Unplaced = max(want, 0)
	p.RequeueAfter = jobNext(in)
	if want <= 0 {
		return p, nil
	}
	if in.Shift != nil && kept == 0 {
		// Nothing of the job runs yet: it starts when the carbon
		// scheduler chose, once; a later pass keeps that choice.
		p.PlannedStart = in.PlannedStart
		if p.PlannedStart.IsZero() {
			dry := w
			dry.Replicas = want
			c, err := jobStart(ctx, placer, in, &dry)
			if err != nil {
				return nil, err
			}
			p.PlannedStart, p.StartReason = c.start, c.reason
			p.ExpectedGrams, p.BaselineGrams = c.expected, c.baseline
		}
		if in.Now.Before(p.PlannedStart) {
			p.Waiting, p.Unplaced = true, 0
			p.RequeueAfter = p.PlannedStart.Sub(in.Now)
			return p, nil
		}
	}

	w.Replicas = kept + want
	d, err := placer.Place(ctx, in.Snapshot, &w)
	if err != nil {
		return nil, fmt.Errorf("failed to place: %w", err)
	}
	p.Workload, p.Decision = &w, d
	var names []string
	var parallel []int32
	for _, a := range d.Assignments {
		if n := a.Replicas - w.Current[a.Cluster]; n > 0 {
			names = append(names, a.Cluster)
			parallel = append(parallel, n)
		}
	}
	shares := shareOf(pool, want, parallel)
	for i, name := range names {
		s := JobShare{Parallelism: parallel[i]}
		if pool >= 0 {
			c := shares[i]
			if c == 0 {
				continue
			}
			s.Parallelism = min(s.Parallelism, c)
			s.Completions = &c
		}
		p.Create[name] = s
		p.Unplaced -= s.Parallelism
	}
	if p.Unplaced > 0 {
		p.RequeueAfter = min(nonZero(p.RequeueAfter, in.Timing.UnplacedRetry), in.Timing.UnplacedRetry)
	}
	return p, nil
}

// JobStarted reports whether every member Job runs its parallel pods, as
// many as its completions still need, or finished: the members then count
// the job's pods, and the assumptions of its placement must go, or they
// would reserve the room of pods that completed.
func JobStarted(members map[string]JobMember) bool {
	exists := false
	for _, m := range members {
		if !m.Exists {
			continue
		}
		exists = true
		want := m.Parallelism
		if m.Completions != nil {
			want = min(want, *m.Completions-m.Succeeded)
		}
		if !m.Finished && m.Running < want {
			return false
		}
	}
	return exists
}

// shareOf gives each new member Job its completions: pool in proportion to
// its parallel pods over want, by largest remainder. A negative pool (no
// completions) gives none.
func shareOf(pool, want int32, parallel []int32) []int32 {
	out := make([]int32, len(parallel))
	if pool < 0 || want <= 0 {
		return out
	}
	var given, placed int32
	rem := make([]int64, len(parallel))
	for i, n := range parallel {
		q := int64(pool) * int64(n)
		out[i] = int32(q / int64(want))
		rem[i] = q % int64(want)
		given += out[i]
		placed += n
	}
	// What the placed pods' proportion leaves goes by largest remainder;
	// the share of the pods still unplaced stays in the pool.
	target := int32(int64(pool) * int64(placed) / int64(want))
	if placed == want {
		target = pool
	}
	for left := target - given; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
	}
	return out
}

// jobNext is when a job's pass should come back: when the first Pending
// pods reach the grace period; zero when none wait.
func jobNext(in JobInput) time.Duration {
	var after time.Duration
	for _, m := range in.Members {
		if m.Pending > 0 && in.Now.Sub(m.PendingSince) < in.Timing.PendingGrace {
			after = nonZero(after, in.Timing.PendingGrace-in.Now.Sub(m.PendingSince)+time.Second)
		}
	}
	return after
}

// nonZero returns the smaller of a and b, ignoring a zero a.
func nonZero(a, b time.Duration) time.Duration {
	if a == 0 {
		return b
	}
	return min(a, b)
}
