package broker

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// table decides every Advertisement published to the broker: listed, or
// refused with the reason.
type table struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=advertisements,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=advertisements/status,verbs=get;update;patch

func (r *table) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("broker-table").
		For(&sharingv1alpha1.Advertisement{}).
		// A registration made, changed or refused after its member's
		// advertisement arrived changes who published it: decide again.
		Watches(&sharingv1alpha1.Peer{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			var list sharingv1alpha1.AdvertisementList
			if err := r.List(ctx, &list, client.InNamespace(o.GetNamespace())); err != nil {
				return nil
			}
			out := make([]reconcile.Request, 0, len(list.Items))
			for i := range list.Items {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
			}
			return out
		}), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// listed decides adv as the broker's table holds it: it must pass the
// receiver's precheck with the broker as receiver and the member that
// wrote it as sender, and that member must lend through the broker.
func listed(adv *sharingv1alpha1.Advertisement, m *member, self sharingv1alpha1.ClusterID, now time.Time, skew time.Duration) (reason sharingv1alpha1.AdvertisementReason, message string, ok bool) {
	var sender *sharingv1alpha1.Peer
	if m != nil && m.lends() {
		sender = m.Registration
	}
	if j := sharing.Precheck(adv, sender, self, now, skew); j != nil {
		return j.Reason, j.Message, false
	}
	if _, ok := sharing.PricesOf(adv); !ok {
		j := sharing.NoFullAdvertisement()
		return j.Reason, j.Message, false
	}
	return sharingv1alpha1.AdvertisementReasonListed, fmt.Sprintf("listed with %d shapes until %s", len(adv.Spec.Availability), sharing.ExpiresAt(&adv.Spec).UTC().Format(time.RFC3339)), true
}

// Reconcile decides one advertisement and comes back when it expires.
func (r *table) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	adv := &sharingv1alpha1.Advertisement{}
	if err := r.Get(ctx, req.NamespacedName, adv); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	members, err := r.members(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.keepFullPrices(ctx, adv); err != nil {
		return ctrl.Result{}, err
	}
	now := r.clock.Now()
	reason, msg, ok := listed(adv, members[adv.Namespace], r.opts.BrokerID, now, r.opts.ClockSkew)
	decision := sharingv1alpha1.DecisionRefused
	if ok {
		decision = sharingv1alpha1.DecisionAccepted
	}
	if adv.Status.Decision != decision || adv.Status.Reason != reason || adv.Status.ObservedGeneration != adv.Generation {
		patch := client.MergeFrom(adv.DeepCopy())
		sharing.Judgement{Decision: decision, Reason: reason, Message: msg}.Record(adv)
		if err := r.Status().Patch(ctx, adv, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to write the table's decision on advertisement %s: %w", klog.KObj(adv), err)
		}
		log.FromContext(ctx).V(1).Info("Advertisement decided", "advertisement", klog.KObj(adv), "decision", decision, "reason", reason)
	}
	if left := sharing.ExpiresAt(&adv.Spec).Sub(now); ok && left > 0 {
		return ctrl.Result{RequeueAfter: left + time.Second}, nil
	}
	return ctrl.Result{}, nil
}

// keepFullPrices records a Full advertisement's prices in the annotation
// the Partial ones after it are priced by, as a consumer's agent does.
func (r *table) keepFullPrices(ctx context.Context, adv *sharingv1alpha1.Advertisement) error {
	before := adv.DeepCopy()
	kept, err := sharing.KeepFullPrices(adv)
	if err != nil || !kept {
		return err
	}
	if err := r.Patch(ctx, adv, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("failed to keep the prices of advertisement %s: %w", klog.KObj(adv), err)
	}
	return nil
}
