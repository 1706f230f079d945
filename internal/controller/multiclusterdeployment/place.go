package multiclusterdeployment

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/workload"
)

// plan is a placement decision and the replicas it leaves per member.
type plan struct {
	workload *placement.Workload
	decision *placement.Decision
	// held are the replicas kept on members that are not ready, until they
	// return or the failover grace period ends.
	held map[string]int32
	// failedOver are the replicas of members not ready for longer than the
	// failover grace period, placed elsewhere.
	failedOver map[string]int32
	// target is the replicas every member should run.
	target map[string]int32
	// movedBack is how many replicas this plan brings back to the
	// preferred clusters (a re-scheduler's pull-back).
	movedBack int32
	// recheck, when set, is how soon to look again for a pull-back.
	recheck time.Duration
}

// place decides where mcd's replicas run. Replicas on members that are not
// ready are held there; the others are placed on a live snapshot with what
// each member runs now as Current.
func (r *Reconciler) place(ctx context.Context, mcd *multiclusterv1alpha1.MultiClusterDeployment, members map[string]*member) (*plan, error) {
	w, err := Workload(mcd)
	if err != nil {
		return nil, err
	}
	p := &plan{workload: w, held: map[string]int32{}, failedOver: map[string]int32{}, target: map[string]int32{}}
	r.assumeMembers(w, members)
	w.Current = map[string]int32{}
	for name, m := range members {
		switch {
		case !m.ready && m.replicas > 0 && r.failedOver(m):
			// Gone too long: its replicas are placed anew among the ready
			// members. When it returns, what it still runs counts as
			// Current again and the excess is given up, so nothing runs
			// twice for long.
			p.failedOver[name] = m.replicas
		case !m.ready && m.replicas > 0:
			p.held[name] = m.replicas
			w.Replicas = max(w.Replicas-m.replicas, 0)
		case m.ready && m.overdue:
			// What the member could not run goes elsewhere; it keeps the rest.
			w.Current[name] = max(m.replicas-m.pending, 0)
			if w.Full == nil {
				w.Full = map[string]bool{}
			}
			w.Full[name] = true
		case m.ready && m.replicas > 0:
			w.Current[name] = m.replicas
		}
	}

	snap := r.Inventory.SnapshotFor(r.traffic(ctx, mcd), r.Assumptions)
	start := time.Now()
	d, err := r.Framework.Place(ctx, snap, w)
	decisionSeconds.WithLabelValues(string(w.Policy)).Observe(time.Since(start).Seconds())
	if err != nil {
		decisions.WithLabelValues(string(w.Policy), outcomeInvalid).Inc()
		return nil, fmt.Errorf("failed to place: %w", err)
	}
	switch {
	case d.Unplaced == 0:
		decisions.WithLabelValues(string(w.Policy), outcomePlaced).Inc()
	case len(d.Assignments) > 0:
		decisions.WithLabelValues(string(w.Policy), outcomePartial).Inc()
	default:
		decisions.WithLabelValues(string(w.Policy), outcomeNone).Inc()
	}
	unplaced.WithLabelValues(mcd.Namespace, mcd.Name).Set(float64(d.Unplaced))
	p.decision = d
	maps.Copy(p.target, p.held)
	for _, a := range d.Assignments {
		p.target[a.Cluster] += a.Replicas
	}
	if mcr := r.rescheduler(ctx); mcr != nil {
		if p.movedBack = newAtHome(w, r.pullBack(ctx, mcr, p, snap, members), p.target, members); p.movedBack > 0 {
			r.recordPullBack(ctx, mcr, p.movedBack)
			movedBack.WithLabelValues(mcd.Namespace, mcd.Name).Add(float64(p.movedBack))
		}
		if awayFromHome(w, p.target) {
			// Look again at the rescheduler's pace, not only when
			// something changes: room at home may come from anywhere.
			p.recheck = pullBackInterval(mcr)
		}
	}
	r.Assumptions.Assume(w, targetDecision(p))
	return p, nil
}

// newAtHome is how many of the moved replicas the preferred members do not
// run yet: a move planned again before the last one finished is not
// counted twice.
func newAtHome(w *placement.Workload, moved int32, target map[string]int32, members map[string]*member) int32 {
	var grown int32
	for _, l := range w.Locations {
		if m := members[l]; m != nil {
			grown += max(target[l]-m.replicas, 0)
		}
	}
	return min(moved, grown)
}

// awayFromHome reports whether target runs replicas outside w's preferred
// locations.
func awayFromHome(w *placement.Workload, target map[string]int32) bool {
	if len(w.Locations) == 0 {
		return false
	}
	for name, n := range target {
		if n > 0 && !slices.Contains(w.Locations, name) {
			return true
		}
	}
	return false
}

// targetDecision is the plan's target as a decision, for the assumptions:
// a pull-back changes where replicas go after the framework decided.
func targetDecision(p *plan) *placement.Decision {
	d := &placement.Decision{Unplaced: p.decision.Unplaced}
	for name, n := range p.target {
		if p.held[name] == 0 && n > 0 {
			d.Assignments = append(d.Assignments, placement.Assignment{Cluster: name, Replicas: n})
		}
	}
	return d
}

// failedOver reports whether m has been not ready for longer than the
// failover grace period; a zero period never fails over.
func (r *Reconciler) failedOver(m *member) bool {
	return r.FailoverGrace > 0 && !m.notReadySince.IsZero() && time.Since(m.notReadySince) >= r.FailoverGrace
}

// assumeMembers reserves, in the assumptions, the replicas every ready
// member was asked to run and has not bound yet. After a restart the
// assumptions start empty; without this, replicas written before the
// restart but not yet scheduled would look like free room.
func (r *Reconciler) assumeMembers(w *placement.Workload, members map[string]*member) {
	seen := &placement.Workload{Key: w.Key, PodRequests: w.PodRequests, Tolerations: w.Tolerations, Current: map[string]int32{}}
	asked := &placement.Decision{}
	for name, m := range members {
		if !m.ready || m.client == nil {
			continue
		}
		// A member without a Deployment is asked for none, which also
		// drops what an earlier decision assumed there.
		seen.Current[name] = m.bound
		if m.deployment != nil {
			asked.Assignments = append(asked.Assignments, placement.Assignment{Cluster: name, Replicas: m.replicas})
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
