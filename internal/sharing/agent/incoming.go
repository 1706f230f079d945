package agent

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// incomingWorkers is how many advertisements are decided at once.
const incomingWorkers = 8

// incoming decides every Advertisement written into this cluster.
type incoming struct {
	*base
	policy Policy
}

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=advertisements,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=advertisements/status,verbs=get;update;patch

func (r *incoming) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-incoming").
		For(&sharingv1alpha1.Advertisement{}).
		// A Peer created, changed or disabled after its advertisements
		// arrived changes who sent them: decide them again.
		Watches(&sharingv1alpha1.Peer{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			p, ok := o.(*sharingv1alpha1.Peer)
			if !ok || p.Namespace != r.opts.Namespace {
				return nil
			}
			var list sharingv1alpha1.AdvertisementList
			if err := r.List(ctx, &list, client.InNamespace(p.Spec.Namespace)); err != nil {
				return nil
			}
			out := make([]reconcile.Request, 0, len(list.Items))
			for i := range list.Items {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
			}
			return out
		}), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// Advertisements arriving together (a hundred providers, or one
		// renewing many) are decided side by side: each waits on its own
		// writes and the policy engine evaluates concurrently.
		WithOptions(controller.Options{MaxConcurrentReconciles: incomingWorkers}).
		Complete(r)
}

// Reconcile decides one advertisement and writes the decision into its
// status; it comes back when the advertisement expires.
func (r *incoming) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	adv := &sharingv1alpha1.Advertisement{}
	if err := r.Get(ctx, req.NamespacedName, adv); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	peers, err := r.peers(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	peer := peerOfNamespace(peers, adv.Namespace)
	if peer != nil && !borrowsFrom(peer) {
		peer = nil
	}
	now := r.clock.Now()

	// Keep the prices of a Full advertisement for the Partial ones after it.
	before := adv.DeepCopy()
	if kept, err := sharing.KeepFullPrices(adv); err != nil {
		return ctrl.Result{}, err
	} else if kept {
		if err := r.Patch(ctx, adv, client.MergeFrom(before)); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to keep the prices of advertisement %s: %w", klog.KObj(adv), err)
		}
	}

	v := sharing.Precheck(adv, peer, r.opts.ClusterID, now, r.opts.ClockSkew)
	if v == nil {
		prices, ok := sharing.PricesOf(adv)
		if !ok {
			refused := sharing.NoFullAdvertisement()
			v = &refused
		} else {
			d, err := r.policy.Eval(ctx, IncomingQuery, inputOf(adv, peer, r.opts.ClusterID, prices))
			if err != nil {
				return ctrl.Result{}, fmt.Errorf("failed to evaluate the incoming policy for %s: %w", klog.KObj(adv), err)
			}
			got, err := outcome(d.Result)
			if err != nil {
				return ctrl.Result{}, err
			}
			v = &got
		}
	}

	patch := client.MergeFrom(adv.DeepCopy())
	v.Record(adv)
	if err := r.Status().Patch(ctx, adv, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to write the decision on advertisement %s: %w", klog.KObj(adv), err)
	}
	logger.V(1).Info("Decided advertisement", "advertisement", klog.KObj(adv), "decision", v.Decision, "reason", v.Reason)
	if left := sharing.ExpiresAt(&adv.Spec).Sub(now); left > 0 && v.Decision == sharingv1alpha1.DecisionAccepted {
		return ctrl.Result{RequeueAfter: left + time.Second}, nil
	}
	return ctrl.Result{}, nil
}
