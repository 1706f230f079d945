package agent

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// reservations frees every hold whose time-to-live passed without a
// renewal and deletes its Reservation, and says in each Reservation's Held
// condition whether its slices still fit their nodes.
type reservations struct{ *base }

func (r *reservations) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-reservations").
		For(&sharingv1alpha1.Reservation{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == r.opts.Namespace }))).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: r.opts.Namespace, Name: "nodes"}}}
		})).
		Complete(r)
}

// Reconcile expires what is due and comes back when the next hold is.
func (r *reservations) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	spare, err := r.spare(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.clock.Now()
	var next time.Time
	over := map[string]bool{}
	err = r.book.do(ctx, func(l *sharing.Ledger) ([]sharing.HoldKey, error) {
		var keys []sharing.HoldKey
		for _, h := range l.Expire(now) {
			keys = append(keys, h.HoldKey)
		}
		for _, n := range l.Overcommitted(spare, now) {
			over[n] = true
		}
		for _, h := range l.Holds() {
			if next.IsZero() || h.ExpiresAt.Before(next) {
				next = h.ExpiresAt
			}
		}
		return keys, nil
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	nodes := map[string]bool{}
	for _, n := range spare {
		nodes[n.Name] = true
	}
	var list sharingv1alpha1.ReservationList
	if err := r.List(ctx, &list, client.InNamespace(r.opts.Namespace)); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list reservations: %w", err)
	}
	for i := range list.Items {
		res := &list.Items[i]
		patch := client.MergeFrom(res.DeepCopy())
		if !setHeld(res, heldCondition(res.Spec.Slices, nodes, over, res.Generation)) {
			continue
		}
		if err := r.Status().Patch(ctx, res, patch); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to write the Held condition of reservation %s: %w", klog.KObj(res), err)
		}
	}
	// Own pods that grow do not trigger this controller: look again after
	// a poll, or when the next hold expires.
	wait := r.opts.PartialInterval
	if !next.IsZero() {
		wait = min(wait, next.Sub(now)+time.Second)
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}
