package agent

import (
	"context"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// reservations frees every hold whose time-to-live passed without a
// renewal and deletes its Reservation.
type reservations struct{ *base }

func (r *reservations) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-reservations").
		For(&sharingv1alpha1.Reservation{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == r.opts.Namespace }))).
		Complete(r)
}

// Reconcile expires what is due and comes back when the next hold is.
func (r *reservations) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	now := r.clock.Now()
	var next time.Time
	err := r.book.do(ctx, func(l *sharing.Ledger) ([]sharing.HoldKey, error) {
		var keys []sharing.HoldKey
		for _, h := range l.Expire(now) {
			keys = append(keys, h.HoldKey)
		}
		for _, h := range l.Holds() {
			if next.IsZero() || h.ExpiresAt.Before(next) {
				next = h.ExpiresAt
			}
		}
		return keys, nil
	})
	if err != nil || next.IsZero() {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: next.Sub(now) + time.Second}, nil
}
