package decide

import (
	"context"
	"fmt"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/placement"
)

// JobShift is a MultiClusterJob's spec.carbonShift: it must finish by
// Deadline and runs for about Duration.
type JobShift struct {
	Deadline time.Time
	Duration time.Duration
}

// jobStartChoice is the start jobStart chose, why, and the carbon
// scheduler's forecast emissions of the job at that start and of starting at
// once in the best-scored cluster (both zero when no intensity was known).
type jobStartChoice struct {
	start              time.Time
	reason             string
	expected, baseline float64
}

// jobStart decides when a job with a carbon shift starts, before anything of
// it is placed: the job is placed now on the snapshot to learn which
// clusters can take it (their filters pass), and the carbon scheduler
// (carbon.Shifter, the function the CloudVM webhook plans with) chooses among
// those clusters' grid zones the start that emits least over the job's
// duration. It returns the start and why; the start is now when the
// snapshot holds no intensities, no feasible cluster has a grid zone, or the
// deadline leaves no room to wait.
func jobStart(ctx context.Context, placer Placer, in JobInput, w *placement.Workload) (jobStartChoice, error) {
	in.Shift.Deadline = in.Shift.Deadline.UTC()
	if !in.Now.Add(in.Shift.Duration).Before(in.Shift.Deadline) {
		return jobStartChoice{start: in.Now, reason: fmt.Sprintf("started at once: the deadline %s leaves no room to wait for a run of %s", in.Shift.Deadline.Format(time.RFC3339), in.Shift.Duration)}, nil
	}
	intensities, ok := in.Snapshot.Carbon.(*carbon.Intensities)
	if !ok || intensities == nil {
		return jobStartChoice{start: in.Now, reason: "started at once: no carbon intensities are known"}, nil
	}
	d, err := placer.Place(ctx, in.Snapshot, w)
	if err != nil {
		return jobStartChoice{}, fmt.Errorf("failed to find the clusters that can run the job: %w", err)
	}
	req := carbon.Request{
		Name:        w.Key,
		CPUMilli:    w.PodRequests.MilliCPU * int64(w.Replicas),
		MemoryBytes: w.PodRequests.Memory * int64(w.Replicas),
		Duration:    in.Shift.Duration,
		Now:         in.Now,
		Deadline:    in.Shift.Deadline,
	}
	// The candidates keep the framework's order: the best-scored first,
	// which the scheduler prefers among equals.
	for _, a := range d.Assignments {
		if c := in.Snapshot.Cluster(a.Cluster); c != nil && c.GridZone != "" {
			req.Candidates = append(req.Candidates, carbon.Candidate{Provider: "cluster", Region: c.Name, Zone: c.GridZone})
		}
	}
	for _, r := range d.Clusters {
		if c := in.Snapshot.Cluster(r.Cluster); r.Filter == nil && c != nil && c.GridZone != "" && !hasCandidate(req.Candidates, c.Name) {
			req.Candidates = append(req.Candidates, carbon.Candidate{Provider: "cluster", Region: c.Name, Zone: c.GridZone})
		}
	}
	if len(req.Candidates) == 0 {
		return jobStartChoice{start: in.Now, reason: "started at once: no cluster that can run the job has a grid zone"}, nil
	}
	plan, err := (&carbon.Shifter{Intensities: intensities}).Plan(req, nil)
	if err != nil {
		return jobStartChoice{start: in.Now, reason: fmt.Sprintf("started at once: %v", err)}, nil
	}
	return jobStartChoice{start: plan.Start, reason: plan.Reason, expected: plan.ExpectedGrams, baseline: plan.BaselineGrams}, nil
}

func hasCandidate(cands []carbon.Candidate, name string) bool {
	for _, c := range cands {
		if c.Region == name {
			return true
		}
	}
	return false
}
