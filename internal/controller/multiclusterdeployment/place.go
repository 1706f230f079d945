package multiclusterdeployment

import (
	"context"
	"time"

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
func (r *Reconciler) place(ctx context.Context, s *Subject, w *placement.Workload, members map[string]*member) (*plan, error) {
	mcd := s.MCD
	in := decide.DeploymentInput{
		Workload: w,
		Members:  make(map[string]decide.Member, len(members)),
		Now:      r.Clock.Now(),
		Timing:   r.timing(),
		// The traffic is read when the workload asks for it and the
		// controller has a source (traffic, below).
		FollowsTraffic: mcd.Spec.Placement.Policy == multiclusterv1alpha1.TrafficAware && r.Traffic != nil,
	}
	for name, m := range members {
		in.Members[name] = m.Member
	}
	traffic := r.traffic(ctx, s)
	mcr := r.rescheduler(ctx)
	var leave map[string]bool
	if mcr != nil {
		leave = r.settledClouds(ctx)
	}
	// From the snapshot to the assumption the decision takes its turn
	// (placement.Assumptions.Turn), with every other workload's.
	done := r.Assumptions.Turn()
	decide.ObserveMembers(r.Assumptions, w, in.Members)
	in.Snapshot = r.Inventory.SnapshotFor(traffic, r.Assumptions)
	withCarbon(in.Snapshot, r.Carbon, in.Now)
	if mcr != nil {
		r.mu.Lock()
		in.PullBack = &decide.PullBack{Interval: pullBackInterval(mcr), Last: r.lastPullBack[w.Key]}
		r.mu.Unlock()
		in.PullBack.LeaveCloud = leave
	}
	start := time.Now()
	p, err := decide.Deployment(ctx, r.Framework, in)
	decisionSeconds.WithLabelValues(string(w.Policy)).Observe(time.Since(start).Seconds())
	if err == nil {
		p.Assume(r.Assumptions)
	}
	done()
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
	return p, nil
}

// Workload converts a MultiClusterDeployment into what the placement
// framework places. Errors name the field at fault.
func Workload(mcd *multiclusterv1alpha1.MultiClusterDeployment) (*placement.Workload, error) {
	return workloadOf(Key(mcd.Namespace, mcd.Name), mcd)
}

// workloadOf is Workload under the placement key.
func workloadOf(key string, mcd *multiclusterv1alpha1.MultiClusterDeployment) (*placement.Workload, error) {
	replicas := int32(1)
	if mcd.Spec.Replicas != nil {
		replicas = *mcd.Spec.Replicas
	}
	return workload.New(key, placement.KindDeployment, replicas, &mcd.Spec.Template.Spec, mcd.Spec.Placement)
}

// Key is the placement key of a MultiClusterDeployment: the inventory's
// owner key of its member objects.
func Key(namespace, name string) string { return workload.Key(Kind, namespace, name) }

// withCarbon gives the snapshot the carbon intensities carbon returns, read
// from now on, when it returns any.
func withCarbon(s *placement.Snapshot, carbon func() placement.CarbonIntensity, now time.Time) {
	if carbon == nil {
		return
	}
	if c := carbon(); c != nil {
		s.Carbon, s.CarbonAt = c, now
	}
}
