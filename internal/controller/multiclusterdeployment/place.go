package multiclusterdeployment

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
)

// plan is a placement decision and the replicas it leaves per member.
type plan struct {
	workload *placement.Workload
	decision *placement.Decision
	// held are the replicas kept on members that are not ready, until they
	// return.
	held map[string]int32
	// target is the replicas every member should run.
	target map[string]int32
}

// place decides where mcd's replicas run. Replicas on members that are not
// ready are held there; the others are placed on a live snapshot with what
// each member runs now as Current.
func (r *Reconciler) place(ctx context.Context, mcd *multiclusterv1alpha1.MultiClusterDeployment, members map[string]*member) (*plan, error) {
	w, err := Workload(mcd)
	if err != nil {
		return nil, err
	}
	p := &plan{workload: w, held: map[string]int32{}, target: map[string]int32{}}
	r.assumeMembers(w, members)
	w.Current = map[string]int32{}
	for name, m := range members {
		switch {
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

	snap := r.Inventory.SnapshotFor(nil, r.Assumptions)
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
	r.Assumptions.Assume(w, d)
	p.decision = d
	maps.Copy(p.target, p.held)
	for _, a := range d.Assignments {
		p.target[a.Cluster] += a.Replicas
	}
	return p, nil
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
	pl := mcd.Spec.Placement
	w := &placement.Workload{
		Key:          Key(mcd.Namespace, mcd.Name),
		Kind:         placement.KindDeployment,
		Replicas:     replicas,
		PodRequests:  placement.PodRequests(&corev1.Pod{Spec: mcd.Spec.Template.Spec}),
		Tolerations:  pl.ClusterTolerations,
		Policy:       Policy(pl),
		Substitution: pl.Substitution != nil && pl.Substitution.Enabled,
		Bursting:     pl.Bursting != nil && pl.Bursting.Enabled,
	}
	for _, l := range pl.Locations {
		w.Locations = append(w.Locations, string(l))
	}
	if pl.NumberOfLocations != nil {
		w.NumberOfLocations = *pl.NumberOfLocations
	}
	if pl.ClusterSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(pl.ClusterSelector)
		if err != nil {
			return nil, fmt.Errorf("spec.placement.clusterSelector is not a valid label selector: %w", err)
		}
		w.ClusterSelector = sel
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// Key is the placement key of a MultiClusterDeployment: the inventory's
// owner key of its member objects.
func Key(namespace, name string) string { return Kind + "/" + namespace + "/" + name }

// Policy returns the placement policy of pl, defaulted: ClusterAffinity
// when locations are given, WorstFit otherwise.
func Policy(pl multiclusterv1alpha1.Placement) placement.Policy {
	switch {
	case pl.Policy != "":
		return placement.Policy(pl.Policy)
	case len(pl.Locations) > 0:
		return placement.PolicyClusterAffinity
	default:
		return placement.PolicyWorstFit
	}
}
