package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
	"github.com/meridian-dev/meridian/internal/sharing/remote"
)

// AnnotationLastFull on an Advertisement is when its provider last sent it
// Full; a Partial one keeps it, so the cadence survives a restart.
const AnnotationLastFull = "sharing.meridian.dev/last-full"

// AnnotationWithdrawn on an Advertisement says its provider took back, at
// that time, the capacity the consumer refused; it is offered again on the
// cadence's timers.
const AnnotationWithdrawn = "sharing.meridian.dev/withdrawn"

// broadcaster advertises this cluster's spare capacity to each consumer
// Peer, reconciling one Peer at a time.
type broadcaster struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=peers,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=reservations,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=reservations/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=nodes;pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

func (r *broadcaster) setup(mgr ctrl.Manager) error {
	all := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
		peers, err := r.peers(ctx)
		if err != nil {
			return nil
		}
		var out []reconcile.Request
		for i := range peers {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: peers[i].Namespace, Name: peers[i].Name}})
		}
		return out
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-broadcaster").
		For(&sharingv1alpha1.Peer{}, builder.WithPredicates(
			predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == r.opts.Namespace }),
			predicate.GenerationChangedPredicate{})).
		Watches(&corev1.Node{}, all).
		Watches(&corev1.Pod{}, all, builder.WithPredicates(predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
			a, b := e.ObjectOld.(*corev1.Pod), e.ObjectNew.(*corev1.Pod)
			return a.Spec.NodeName != b.Spec.NodeName || a.Status.Phase != b.Status.Phase
		}})).
		Complete(r)
}

// Reconcile advertises to one consumer Peer what is due.
func (r *broadcaster) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	peer := &sharingv1alpha1.Peer{}
	if err := r.Get(ctx, req.NamespacedName, peer); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	key := sharing.HoldKey{Consumer: peer.Spec.ClusterID, Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceAdvertisement, Name: string(r.opts.ClusterID)}}
	if !providesTo(peer) || !peer.DeletionTimestamp.IsZero() {
		// Free what the peer held: it is no consumer any more.
		return ctrl.Result{}, r.book.do(ctx, func(l *sharing.Ledger) ([]sharing.HoldKey, error) {
			if _, err := l.Release(key); errors.Is(err, sharing.ErrNoHold) {
				return nil, nil
			}
			return []sharing.HoldKey{key}, nil
		})
	}

	spare, err := r.spare(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}

	rem, err := r.remotes.Of(ctx, peer)
	if err != nil {
		return ctrl.Result{}, err
	}
	adv := &sharingv1alpha1.Advertisement{}
	err = rem.Get(ctx, client.ObjectKey{Namespace: rem.Namespace, Name: string(r.opts.ClusterID)}, adv)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("failed to read the advertisement in peer %q: %w", peer.Spec.ClusterID, err)
	}
	s := sentOf(adv, err == nil)

	now := r.clock.Now()
	var allowed []sharingv1alpha1.ClusterID
	for _, a := range r.opts.AllowedConsumers {
		allowed = append(allowed, sharingv1alpha1.ClusterID(a))
	}
	policy := sharing.OutgoingFromPeer(peer, allowed, sharing.DefaultShapeOptions())

	var (
		resend bool
		plan   sharing.Plan
		kind   sharingv1alpha1.AdvertisementType
		wait   = r.opts.PollInterval
	)
	// Everything, the write into the consumer included, happens under the
	// ledger's lock: no other consumer is advertised capacity between the
	// moment a hold changes and the moment the consumer sees the change.
	err = r.book.do(ctx, func(l *sharing.Ledger) ([]sharing.HoldKey, error) {
		var keys []sharing.HoldKey
		// The consumer's decision on what it holds now.
		if s.Exists && adv.Status.ObservedGeneration == adv.Generation {
			switch adv.Status.Decision {
			case sharingv1alpha1.DecisionAccepted:
				h, ok := l.Get(key)
				if ok && h.State == sharingv1alpha1.ReservationOffered {
					_, err := l.Accept(key, now)
					ok = err == nil
					keys = append(keys, key)
				}
				// Accepted, but nothing (or an expired hold) backs it: the
				// consumer decided an advertisement whose capacity was freed
				// (its time-to-live passed). Advertise again at once, so
				// that it decides what is held.
				resend = !ok
			case sharingv1alpha1.DecisionRefused:
				if _, ok := l.Get(key); ok {
					// Withdraw what was refused before freeing it, so that
					// no advertisement shows capacity another consumer may
					// be given; it is offered again on the cadence's timers
					// only, not on every change, or a consumer that refuses
					// by price would be re-offered at every poll.
					kind = sharingv1alpha1.AdvertisementPartial
					if err := r.send(ctx, rem, adv, s.Exists, peer, kind, sharing.Plan{}, now, true); err != nil {
						return keys, err
					}
					_, err := l.Release(key)
					return append(keys, key), err
				}
			}
		}
		// What would be advertised now, on a copy, to see whether it is due.
		probe, err := sharing.NewLedger(l.Holds()...).Advertise(spare, peer.Spec.ClusterID, string(r.opts.ClusterID), policy, now, now.Add(r.opts.TimeToLive))
		if err != nil {
			return keys, err
		}
		s.Priced = pricesKept(adv, probe.Prices)
		kind, wait = cadence(now, s, probe.Availability, r.opts.FullInterval, r.opts.PartialInterval, r.opts.ChangeFraction)
		if kind == "" && resend {
			kind = s.update()
		}
		if kind == "" {
			return keys, nil
		}
		plan, err = l.Advertise(spare, peer.Spec.ClusterID, string(r.opts.ClusterID), policy, now, now.Add(r.opts.TimeToLive))
		if err != nil {
			return keys, err
		}
		// Written after the hold is in the ledger and before the lock is
		// released; if the write fails the hold lapses by its
		// time-to-live, which errs on the side of promising less.
		return append(keys, key), r.send(ctx, rem, adv, s.Exists, peer, kind, plan, now, false)
	})
	if errors.Is(err, sharing.ErrNotAllowed) {
		logger.Info("Consumer not allowed by the outgoing policy", "peer", klog.KObj(peer))
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if kind != "" {
		logger.V(1).Info("Advertised", "peer", klog.KObj(peer), "type", kind, "shapes", len(plan.Availability))
	}
	return ctrl.Result{RequeueAfter: min(wait, r.opts.PollInterval)}, nil
}

// sentOf reads what a consumer holds of this cluster's advertisement.
func sentOf(adv *sharingv1alpha1.Advertisement, exists bool) sent {
	if !exists {
		return sent{}
	}
	s := sent{Exists: true, LastSent: adv.Spec.Timestamp.Time, Availability: adv.Spec.Availability}
	if t, err := time.Parse(time.RFC3339, adv.Annotations[AnnotationLastFull]); err == nil {
		s.LastFull = t
	}
	_, s.Withdrawn = adv.Annotations[AnnotationWithdrawn]
	return s
}

// pricesKept reports whether the receiver of adv kept prices from a Full
// advertisement, and they are the ones charged now.
func pricesKept(adv *sharingv1alpha1.Advertisement, prices []sharingv1alpha1.Price) bool {
	kept, ok := sharing.KeptPrices(adv)
	return ok && (equality.Semantic.DeepEqual(kept, prices) || len(kept) == 0 && len(prices) == 0)
}

// send writes the advertisement of plan into the consumer; withdrawn marks
// one that takes back what the consumer refused.
func (r *broadcaster) send(ctx context.Context, rem remote.Remote, adv *sharingv1alpha1.Advertisement, exists bool, peer *sharingv1alpha1.Peer, kind sharingv1alpha1.AdvertisementType, plan sharing.Plan, now time.Time, withdrawn bool) error {
	if !exists {
		adv.Name, adv.Namespace = string(r.opts.ClusterID), rem.Namespace
	}
	if adv.Annotations == nil {
		adv.Annotations = map[string]string{}
	}
	// Seconds: the API server keeps timestamps to the second.
	now = now.Truncate(time.Second)
	adv.Spec = sharingv1alpha1.AdvertisementSpec{
		ClusterID: r.opts.ClusterID, Consumer: peer.Spec.ClusterID, Type: kind,
		Availability: plan.Availability,
		Timestamp:    metav1.NewTime(now), TimeToLive: metav1.Duration{Duration: r.opts.TimeToLive},
	}
	delete(adv.Annotations, AnnotationWithdrawn)
	if withdrawn {
		adv.Annotations[AnnotationWithdrawn] = now.Format(time.RFC3339)
	}
	if kind == sharingv1alpha1.AdvertisementFull {
		adv.Spec.Prices = plan.Prices
		adv.Annotations[AnnotationLastFull] = now.Format(time.RFC3339)
	}
	var err error
	if exists {
		err = rem.Update(ctx, adv)
	} else {
		err = rem.Create(ctx, adv)
	}
	if err != nil {
		return fmt.Errorf("failed to write the advertisement into peer %q: %w", peer.Spec.ClusterID, err)
	}
	return nil
}
