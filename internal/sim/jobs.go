package sim

import (
	"maps"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/decide"
)

// memberJob is a workload's Job in one member cluster, as the propagation
// writes it, and the completions its pods reached.
type memberJob struct {
	parallelism, completions int32
	succeeded                int32
}

// reconcileJob is one pass of the MultiClusterJob controller over wl:
// observe the member Jobs, decide with decide.Job (the controller's own
// decision), delete and create member Jobs, and come back when the plan
// says.
func (w *world) reconcileJob(wl *mcWorkload) {
	if wl.done {
		return
	}
	members := w.observeJob(wl)
	completions := wl.desired
	in := decide.JobInput{
		Workload: wl.spec, Completions: &completions, Members: members,
		Snapshot: w.snapshot(), Now: w.now(), Timing: w.timing,
	}
	start := time.Now()
	p, err := decide.Job(w.ctx, w.placer, in)
	if p != nil && p.Decision != nil {
		w.decisions = append(w.decisions, time.Since(start))
	}
	if err != nil {
		w.fail(err)
		return
	}
	for _, name := range p.Delete {
		w.writeJob(wl, name, nil)
	}
	for _, name := range slices.Sorted(maps.Keys(p.Create)) {
		s := p.Create[name]
		w.writeJob(wl, name, &memberJob{parallelism: s.Parallelism, completions: *s.Completions})
	}
	if p.Decision != nil {
		p.Assume(w.assumptions)
		wl.assumed = true
		w.version++
	}
	if wl.assumed && decide.JobStarted(w.observeJob(wl)) {
		// Every member Job runs its pods, which the members now count.
		w.assumptions.Forget(wl.spec.Key)
		wl.assumed = false
		w.version++
	}
	if p.RequeueAfter > 0 {
		w.schedulePass(wl, p.RequeueAfter)
	}
}

// observeJob is what every member cluster shows of wl's member Jobs.
func (w *world) observeJob(wl *mcWorkload) map[string]decide.JobMember {
	out := make(map[string]decide.JobMember, len(w.members))
	for _, m := range w.members {
		jm := decide.JobMember{Ready: !m.down}
		if j := wl.jobs[m.Name]; j != nil {
			c := j.completions
			jm.Exists, jm.Parallelism, jm.Completions, jm.Succeeded = true, j.parallelism, &c, j.succeeded
			jm.Finished = j.succeeded >= j.completions
		}
		out[m.Name] = jm
	}
	for name, c := range wl.podCounts() {
		jm := out[name]
		jm.Running, jm.Pending, jm.PendingSince = c.Bound, c.Pending, c.PendingSince
		out[name] = jm
	}
	return out
}

// writeJob creates wl's Job in the named member, whose Job controller
// starts its pods at once, or deletes it (j nil) with its pods.
func (w *world) writeJob(wl *mcWorkload, name string, j *memberJob) {
	if j == nil {
		delete(wl.jobs, name)
		for _, p := range slices.Clone(wl.pods) {
			if p.Cluster.Name == name {
				w.deletePod(p)
			}
		}
		return
	}
	m := w.byName[name]
	if m == nil {
		return
	}
	wl.jobs[name] = j
	w.createPods(wl, m, min(j.parallelism, j.completions))
}
