package multiclusterdeployment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// rollout is the outcome of writing a plan into the members.
type rollout struct {
	// waiting is true while members that lose replicas wait for the
	// replicas added elsewhere to be ready.
	waiting bool
	// heldBy says what holds the removal back beyond the new replicas'
	// readiness (a disruption budget); empty when nothing does.
	heldBy string
	// unreachable names members that should change but are not connected.
	unreachable []string
	err         error
}

// propagate makes the member Deployments match plan: members that gain
// replicas (or are new) first; members that lose replicas only once every
// member that gained is ready, unless the workload as a whole shrinks and
// nothing is added; a member left with none loses its Deployment.
func (r *Reconciler) propagate(ctx context.Context, mcd *multiclusterv1alpha1.MultiClusterDeployment, p *plan, members map[string]*member) rollout {
	var out rollout
	var errs []error
	var grow, shrink []string
	for _, name := range slices.Sorted(maps.Keys(members)) {
		m := members[name]
		want := p.target[name]
		switch {
		case !m.ready:
			continue // held: nothing can be written
		case m.client == nil:
			if want != m.replicas {
				out.unreachable = append(out.unreachable, name)
			}
		case want > 0 && (m.deployment == nil || want > m.replicas || !upToDate(m, mcd)):
			grow = append(grow, name)
		case want < m.replicas || (want == 0 && m.deployment != nil):
			shrink = append(shrink, name)
		}
	}

	for _, name := range grow {
		m := members[name]
		if err := propagation.Apply(ctx, m.client, propagation.Deployment(mcd, p.target[name])); err != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
		}
	}

	if len(shrink) > 0 && !keepsAvailability(p, members) {
		out.waiting = true
		shrink = nil
	}
	if len(shrink) > 0 && moving(mcd, shrink, members) {
		// A move, not a scale-down: the workload's disruption budgets
		// hold too.
		b, err := r.disruptionBudget(ctx, mcd, p.workload.Replicas)
		if err != nil {
			errs = append(errs, err)
			shrink = nil
		} else if ready := readyAfter(p, members); ready < b.minReady {
			out.waiting, out.heldBy = true, fmt.Sprintf("PodDisruptionBudget %s needs %d ready replicas and the move would leave %d", b.name, b.minReady, ready)
			shrink = nil
		}
	}
	for _, name := range shrink {
		m := members[name]
		var err error
		if p.target[name] == 0 {
			err = client.IgnoreNotFound(m.client.Delete(ctx, m.deployment))
		} else {
			err = propagation.Apply(ctx, m.client, propagation.Deployment(mcd, p.target[name]))
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
		}
	}
	out.err = errors.Join(errs...)
	return out
}

// moving reports whether removing replicas from the shrink members is part
// of a move (a pull-back, a rebalance, overflow or failover handled) rather
// than a scale-down: the members were written from the current spec, so
// the spec did not ask for fewer replicas. Kubernetes does not hold a
// scale-down for a PodDisruptionBudget, and neither does Meridian.
func moving(mcd *multiclusterv1alpha1.MultiClusterDeployment, shrink []string, members map[string]*member) bool {
	for _, name := range shrink {
		if !upToDate(members[name], mcd) {
			return false
		}
	}
	return true
}

// keepsAvailability reports whether writing every target keeps as many
// replicas ready as the workload has now (up to what it wants). A member
// Deployment that shrinks removes its unready pods first, so each member
// keeps min(ready, target) ready: a pure scale-down passes at once, while a
// move waits until the replicas added elsewhere are ready.
func keepsAvailability(p *plan, members map[string]*member) bool {
	var now int32
	for _, m := range members {
		if m.ready {
			now += m.readyReplicas
		}
	}
	return readyAfter(p, members) >= min(now, p.workload.Replicas)
}

// readyAfter is how many replicas stay ready once every target is written.
func readyAfter(p *plan, members map[string]*member) int32 {
	var after int32
	for name, m := range members {
		if m.ready {
			after += min(m.readyReplicas, p.target[name])
		}
	}
	return after
}

// upToDate reports whether the member Deployment was made from mcd's
// current generation.
func upToDate(m *member, mcd *multiclusterv1alpha1.MultiClusterDeployment) bool {
	return m.deployment != nil && m.deployment.Annotations[multiclusterv1alpha1.AnnotationOwnerGeneration] == strconv.FormatInt(mcd.Generation, 10)
}
