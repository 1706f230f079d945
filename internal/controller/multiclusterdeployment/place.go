package multiclusterdeployment

import (
	"context"
	"maps"
	"slices"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/workload"
)

// plan is one pass's decision (package decide).
type plan = decide.DeploymentPlan

// place decides where mcd's replicas run with decide.Deployment, on a live
// snapshot that reserves what earlier decisions assumed, and records the
// new decision in the assumptions.
func (r *Reconciler) place(ctx context.Context, mcd *multiclusterv1alpha1.MultiClusterDeployment, w *placement.Workload, members map[string]*member) (*plan, error) {
	r.assumeMembers(w, members)
	in := decide.DeploymentInput{
		Workload: w,
		Members:  make(map[string]decide.Member, len(members)),
		Snapshot: r.Inventory.SnapshotFor(r.traffic(ctx, mcd), r.Assumptions),
		Now:      r.Clock.Now(),
		Timing:   r.timing(),
	}
	for name, m := range members {
		in.Members[name] = m.Member
	}
	mcr := r.rescheduler(ctx)
	if mcr != nil {
		r.mu.Lock()
		in.PullBack = &decide.PullBack{Interval: pullBackInterval(mcr), Last: r.lastPullBack[w.Key]}
		r.mu.Unlock()
	}
	start := r.Clock.Now()
	p, err := decide.Deployment(ctx, r.Framework, in)
	decisionSeconds.WithLabelValues(string(w.Policy)).Observe(r.Clock.Since(start).Seconds())
	if err != nil {
		outcome := outcomeError
		if decide.InvalidSpec(err) {
			outcome = outcomeInvalid
		}
		decisions.WithLabelValues(string(w.Policy), outcome).Inc()
		return nil, err
	}
	d := p.Decision
	switch {
	case d.Unplaced == 0:
		decisions.WithLabelValues(string(w.Policy), outcomePlaced).Inc()
	case len(d.Assignments) > 0:
		decisions.WithLabelValues(string(w.Policy), outcomePartial).Inc()
	default:
		decisions.WithLabelValues(string(w.Policy), outcomeNone).Inc()
	}
	unplaced.WithLabelValues(mcd.Namespace, mcd.Name).Set(float64(d.Unplaced))
	if p.PullBackConsidered {
		r.mu.Lock()
		r.lastPullBack[w.Key] = in.Now
		r.mu.Unlock()
	}
	if p.MovedBack > 0 {
		r.recordPullBack(ctx, mcr, p.MovedBack)
		movedBack.WithLabelValues(mcd.Namespace, mcd.Name).Add(float64(p.MovedBack))
	}
	r.Assumptions.Assume(p.Workload, targetDecision(p))
	return p, nil
}

// targetDecision is the plan's target as a decision, for the assumptions:
// a pull-back changes where replicas go after the framework decided.
func targetDecision(p *plan) *placement.Decision {
	d := &placement.Decision{Unplaced: p.Decision.Unplaced}
	for _, name := range slices.Sorted(maps.Keys(p.Target)) {
		if n := p.Target[name]; p.Held[name] == 0 && n > 0 {
			d.Assignments = append(d.Assignments, placement.Assignment{Cluster: name, Replicas: n})
		}
	}
	return d
}

// assumeMembers reserves, in the assumptions, the replicas every ready
// member was asked to run and has not bound yet. After a restart the
// assumptions start empty; without this, replicas written before the
// restart but not yet scheduled would look like free room.
func (r *Reconciler) assumeMembers(w *placement.Workload, members map[string]*member) {
	seen := &placement.Workload{Key: w.Key, PodRequests: w.PodRequests, Tolerations: w.Tolerations, Current: map[string]int32{}}
	asked := &placement.Decision{}
	for name, m := range members {
		if !m.Ready || !m.Connected {
			continue
		}
		// A member without a Deployment is asked for none, which also
		// drops what an earlier decision assumed there.
		seen.Current[name] = m.bound
		if m.Exists {
			asked.Assignments = append(asked.Assignments, placement.Assignment{Cluster: name, Replicas: m.Replicas})
		}
	}
	r.Assumptions.Assume(seen, asked)
}

// Workload converts a MultiClusterDeployment into what the placement
// framework places. Errors name the field at fault.
func Workload(mcd *multiclusterv1alpha1.MultiClusterDeployment) (*placement.Workload, error) {
	replicas := int32(1)
	if mcd.Spec.Replicas != nil {
		replicas = *mcd.Spec.Replicas
	}
	return workload.New(Key(mcd.Namespace, mcd.Name), placement.KindDeployment, replicas, &mcd.Spec.Template.Spec, mcd.Spec.Placement)
}

// Key is the placement key of a MultiClusterDeployment: the inventory's
// owner key of its member objects.
func Key(namespace, name string) string { return workload.Key(Kind, namespace, name) }
