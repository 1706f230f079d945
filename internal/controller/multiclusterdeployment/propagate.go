package multiclusterdeployment

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/meridian-dev/meridian/internal/propagation"
)

// rollout is the outcome of writing a plan into the members.
type rollout struct {
	// waiting is true while members that lose replicas wait for the
	// replicas added elsewhere to be ready, or for a disruption budget.
	waiting bool
	// heldBy says what holds the removal back beyond the new replicas'
	// readiness (a disruption budget); empty when nothing does.
	heldBy string
	// unreachable names members that should change but are not connected.
	unreachable []string
	err         error
}

// propagate writes the plan's rollout into the members: members that grow
// first, all at once, then members that shrink (a member left with none loses its
// Deployment), unless a disruption budget holds the move.
func (r *Reconciler) propagate(ctx context.Context, s *Subject, p *plan, members map[string]*member) rollout {
	mcd := s.MCD
	ro := p.Rollout
	out := rollout{waiting: ro.Waiting, unreachable: ro.Unreachable}
	// Members that grow are written at once: each is its own API server,
	// and one after the other a workload spread over n members waited n
	// round trips before its last Deployment existed.
	grown := make([]error, len(ro.Grow))
	var wg sync.WaitGroup
	for i, name := range ro.Grow {
		wg.Go(func() {
			if !members[name].Exists {
				// About to create it: a workload of that name the member
				// made itself is never overwritten.
				foreign, err := foreignWorkload(ctx, members[name].reader, s)
				if err != nil {
					grown[i] = fmt.Errorf("member %q: %w", name, err)
					return
				}
				if foreign {
					r.rememberForeign(s.Key(), name)
					grown[i] = fmt.Errorf("member %q has its own %s %s/%s, which Meridian does not overwrite; its replicas go elsewhere at the next pass", name, s.kind().Kind, mcd.Namespace, mcd.Name)
					return
				}
			}
			d, err := s.build(name, p.Target[name])
			if err != nil {
				grown[i] = fmt.Errorf("member %q: %w", name, err)
				return
			}
			if err := propagation.Apply(ctx, members[name].client, d); err != nil {
				grown[i] = fmt.Errorf("member %q: %w", name, err)
				return
			}
			log.FromContext(ctx).Info("Wrote member workload", "member", name, "kind", s.kind().Kind, "object", klog.KObj(d), "replicas", p.Target[name])
		})
	}
	wg.Wait()
	var errs []error
	for _, err := range grown {
		if err != nil {
			errs = append(errs, err)
		}
	}

	shrink := ro.Shrink
	if len(shrink) > 0 && ro.Move {
		b, err := r.disruptionBudget(ctx, mcd, p.Workload.Replicas)
		switch {
		case err != nil:
			errs = append(errs, err)
			shrink = nil
		case ro.ReadyAfter < b.minReady:
			out.waiting, out.heldBy = true, fmt.Sprintf("PodDisruptionBudget %s needs %d ready replicas and the move would leave %d", b.name, b.minReady, ro.ReadyAfter)
			shrink = nil
		}
	}
	for _, name := range shrink {
		m := members[name]
		var err error
		if p.Target[name] == 0 {
			err = client.IgnoreNotFound(m.client.Delete(ctx, m.object))
			if err == nil {
				log.FromContext(ctx).Info("Deleted member workload", "member", name, "kind", s.kind().Kind, "object", klog.KObj(m.object))
			}
		} else {
			var d client.Object
			if d, err = s.build(name, p.Target[name]); err == nil {
				err = propagation.Apply(ctx, m.client, d)
			}
			if err == nil {
				log.FromContext(ctx).Info("Wrote member workload", "member", name, "kind", s.kind().Kind, "object", klog.KObj(d), "replicas", p.Target[name])
			}
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
		}
	}
	out.err = errors.Join(errs...)
	return out
}
