package broker

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// queries answers every CapacityQuery from the advertisement table, once
// per generation of its spec.
type queries struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=capacityqueries,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=capacityqueries/status,verbs=get;update;patch

func (r *queries) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("broker-queries").
		For(&sharingv1alpha1.CapacityQuery{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// Reconcile answers one query.
func (r *queries) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	q := &sharingv1alpha1.CapacityQuery{}
	if err := r.Get(ctx, req.NamespacedName, q); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if c := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.CapacityQueryAnswered); c != nil && c.ObservedGeneration == q.Generation {
		return ctrl.Result{}, nil
	}
	members, err := r.members(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	cond := metav1.Condition{Type: sharingv1alpha1.CapacityQueryAnswered, Status: metav1.ConditionFalse, ObservedGeneration: q.Generation}
	var matches []sharingv1alpha1.CapacityMatch
	m := members[q.Namespace]
	switch errs := validateQuery(&q.Spec); {
	case m == nil || m.Registration == nil:
		cond.Reason, cond.Message = sharingv1alpha1.CapacityQueryReasonNotMember, fmt.Sprintf("namespace %q belongs to no registered member", q.Namespace)
	case len(errs) > 0:
		cond.Reason, cond.Message = sharingv1alpha1.CapacityQueryReasonInvalid, errs.ToAggregate().Error()
	default:
		table, err := r.table(ctx, members)
		if err != nil {
			return ctrl.Result{}, err
		}
		matches = match(&q.Spec, table)
		cond.Status = metav1.ConditionTrue
		cond.Reason, cond.Message = queryMessage(matches, len(table))
	}
	patch := client.MergeFrom(q.DeepCopy())
	now := metav1.NewTime(r.clock.Now())
	q.Status.Matches, q.Status.AnsweredAt, q.Status.ObservedGeneration = matches, &now, q.Generation
	meta.SetStatusCondition(&q.Status.Conditions, cond)
	sharing.SetReady(q)
	if err := r.Status().Patch(ctx, q, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to answer query %s: %w", klog.KObj(q), err)
	}
	return ctrl.Result{}, nil
}

// table is every advertisement the broker lists now, decided afresh
// (listed), not read from a status that may be older than a registration.
func (b *base) table(ctx context.Context, members map[string]*member) ([]listing, error) {
	var advs sharingv1alpha1.AdvertisementList
	if err := b.List(ctx, &advs); err != nil {
		return nil, fmt.Errorf("failed to list advertisements: %w", err)
	}
	now := b.clock.Now()
	var out []listing
	for i := range advs.Items {
		a := &advs.Items[i]
		m := members[a.Namespace]
		if _, _, ok := listed(a, m, b.opts.BrokerID, now, b.opts.ClockSkew); !ok {
			continue
		}
		prices, _ := sharing.PricesOf(a)
		out = append(out, listing{Advertisement: a, Prices: prices, Region: m.Registration.Spec.Region})
	}
	return out, nil
}
