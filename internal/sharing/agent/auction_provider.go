package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// quotes answers the Quotes consumers write into this cluster with Offers
// written into theirs, holding the capacity until the offer expires.
type quotes struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=quotes;acknowledgements;releases,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=quotes/status;acknowledgements/status;releases/status;offers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=offers,verbs=get;list;watch

func notAgentNamespace(ns string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() != ns })
}

func (r *quotes) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-quotes").
		For(&sharingv1alpha1.Quote{}, builder.WithPredicates(notAgentNamespace(r.opts.Namespace))).
		Complete(r)
}

// consumerOf returns the consumer Peer that wrote into ns.
func (b *base) consumerOf(ctx context.Context, ns string) (*sharingv1alpha1.Peer, error) {
	peers, err := b.peers(ctx)
	if err != nil {
		return nil, err
	}
	p := peerOfNamespace(peers, ns)
	if p == nil || !providesTo(p) {
		return nil, nil
	}
	return p, nil
}

// Reconcile answers one quote once.
func (r *quotes) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	q := &sharingv1alpha1.Quote{}
	if err := r.Get(ctx, req.NamespacedName, q); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.QuoteAnswered) != nil {
		return ctrl.Result{}, nil
	}
	peer, err := r.consumerOf(ctx, q.Namespace)
	if err != nil || peer == nil {
		return ctrl.Result{}, err
	}
	now := r.clock.Now()
	answer := func(status metav1.ConditionStatus, reason, msg, offer string) (ctrl.Result, error) {
		patch := client.MergeFrom(q.DeepCopy())
		q.Status.Offer = offer
		meta.SetStatusCondition(&q.Status.Conditions, metav1.Condition{Type: sharingv1alpha1.QuoteAnswered, Status: status, Reason: reason, Message: msg, ObservedGeneration: q.Generation})
		sharing.SetReady(q)
		if err := r.Status().Patch(ctx, q, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to answer quote %s: %w", klog.KObj(q), err)
		}
		return ctrl.Result{}, nil
	}
	if errs := sharing.Validate(q); len(errs) > 0 || q.Spec.Consumer != peer.Spec.ClusterID {
		return answer(metav1.ConditionFalse, sharing.ReasonConsumerMismatch, fmt.Sprintf("written by %q, claims %q; %v", peer.Spec.ClusterID, q.Spec.Consumer, errs.ToAggregate()), "")
	}
	if !now.Before(q.Spec.Deadline.Time) {
		return answer(metav1.ConditionFalse, sharingv1alpha1.QuoteReasonDeadlinePast, "the deadline passed before the quote was answered", "")
	}

	spare, err := r.spare(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	rem, err := r.remotes.Of(ctx, peer)
	if err != nil {
		return ctrl.Result{}, err
	}
	expires := q.Spec.Deadline.Add(r.opts.OfferHold)
	name := offerName(q.Name)
	var price *sharingv1alpha1.Money
	fits := false
	err = r.book.do(ctx, func(l *sharing.Ledger) ([]sharing.HoldKey, error) {
		slices, p, ok := planOffer(spare, l, peer.Spec.ClusterID, q, sharing.OutgoingFromPeer(peer, nil, sharing.DefaultShapeOptions()), now)
		if !ok {
			return nil, nil
		}
		h, err := l.Offer(spare, peer.Spec.ClusterID, name, slices, now, expires)
		if err != nil {
			return nil, err
		}
		fits, price = true, p
		return []sharing.HoldKey{h.HoldKey}, nil
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	if !fits {
		return answer(metav1.ConditionFalse, sharingv1alpha1.QuoteReasonNoCapacity, "no set of nodes can host every replica", "")
	}
	offer := &sharingv1alpha1.Offer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: rem.Namespace},
		Spec: sharingv1alpha1.OfferSpec{
			Provider: r.opts.ClusterID, Quote: q.Name, AppID: q.Spec.AppID,
			Whole:     &sharingv1alpha1.OfferTerms{Interest: 100, Price: price},
			Timestamp: metav1.NewTime(now), ExpiresAt: metav1.NewTime(expires),
		},
	}
	if err := rem.Create(ctx, offer); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("failed to write offer %q into peer %q: %w", name, peer.Spec.ClusterID, err)
	}
	return answer(metav1.ConditionTrue, sharingv1alpha1.QuoteReasonOffered, fmt.Sprintf("offered for %s %s per hour until %s", price.Amount.String(), price.Currency, expires.UTC().Format("15:04:05")), name)
}

// acks answers Acknowledgements: a confirmation reserves the offer's hold
// for ReservedHold, a refusal frees it.
type acks struct{ *base }

func (r *acks) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-acknowledgements").
		For(&sharingv1alpha1.Acknowledgement{}, builder.WithPredicates(notAgentNamespace(r.opts.Namespace))).
		Complete(r)
}

// Reconcile answers one acknowledgement once.
func (r *acks) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	a := &sharingv1alpha1.Acknowledgement{}
	if err := r.Get(ctx, req.NamespacedName, a); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if a.Status.Decision != "" {
		return ctrl.Result{}, nil
	}
	peer, err := r.consumerOf(ctx, a.Namespace)
	if err != nil || peer == nil {
		return ctrl.Result{}, err
	}
	spare, err := r.spare(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.clock.Now()
	key := sharing.HoldKey{Consumer: peer.Spec.ClusterID, Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: a.Spec.Offer}}
	decision, reason, reservation := sharingv1alpha1.AckRefused, sharingv1alpha1.AcknowledgementReason(""), ""
	var until time.Time
	err = r.book.do(ctx, func(l *sharing.Ledger) ([]sharing.HoldKey, error) {
		h, ok := l.Get(key)
		switch {
		case a.Spec.Consumer != peer.Spec.ClusterID:
			reason = sharingv1alpha1.AcknowledgementReasonConsumerMismatch
			return nil, nil
		case !ok:
			reason = sharingv1alpha1.AcknowledgementReasonNoOffer
			return nil, nil
		case !a.Spec.Confirm:
			reason = sharingv1alpha1.AcknowledgementReasonDeclined
			_, err := l.Release(key)
			return []sharing.HoldKey{key}, err
		case h.State == sharingv1alpha1.ReservationReserved:
			decision, reason, reservation, until = sharingv1alpha1.AckConfirmed, sharingv1alpha1.AcknowledgementReasonReserved, reservationName(key), h.ExpiresAt
			return nil, nil
		case !now.Before(h.ExpiresAt):
			reason = sharingv1alpha1.AcknowledgementReasonOfferExpired
			_, err := l.Release(key)
			return []sharing.HoldKey{key}, err
		}
		// Accept and hold for ReservedHold: the offer's own expiry only
		// bounded the wait for this acknowledgement.
		if _, err := l.Release(key); err != nil {
			return nil, err
		}
		if _, err := l.Offer(spare, key.Consumer, key.Source.Name, h.Slices, now, now.Add(r.opts.ReservedHold)); err != nil {
			reason = sharingv1alpha1.AcknowledgementReasonCapacityGone
			return []sharing.HoldKey{key}, nil //nolint:nilerr // the refusal is the reason, recorded in status
		}
		held, err := l.Accept(key, now)
		if err != nil {
			return []sharing.HoldKey{key}, err
		}
		decision, reason, reservation, until = sharingv1alpha1.AckConfirmed, sharingv1alpha1.AcknowledgementReasonReserved, reservationName(key), held.ExpiresAt
		return []sharing.HoldKey{key}, nil
	})
	if err != nil && !errors.Is(err, sharing.ErrNoHold) {
		return ctrl.Result{}, err
	}
	if decision == sharingv1alpha1.AckConfirmed {
		// Before the answer: a consumer that sees Confirmed also sees until
		// when its virtual nodes may stay.
		if err := r.extendOffer(ctx, peer, a.Spec.Offer, until); err != nil {
			return ctrl.Result{}, err
		}
	}
	patch := client.MergeFrom(a.DeepCopy())
	a.Status.Decision, a.Status.Reason, a.Status.Reservation = decision, reason, reservation
	sharing.SetReady(a)
	if err := r.Status().Patch(ctx, a, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to answer acknowledgement %s: %w", klog.KObj(a), err)
	}
	return ctrl.Result{}, nil
}

// releases frees the capacity a consumer releases.
type releases struct{ *base }

func (r *releases) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-releases").
		For(&sharingv1alpha1.Release{}, builder.WithPredicates(notAgentNamespace(r.opts.Namespace))).
		Complete(r)
}

// Reconcile frees what one Release names, once.
func (r *releases) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rel := &sharingv1alpha1.Release{}
	if err := r.Get(ctx, req.NamespacedName, rel); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if meta.FindStatusCondition(rel.Status.Conditions, sharingv1alpha1.ReleaseDone) != nil {
		return ctrl.Result{}, nil
	}
	peer, err := r.consumerOf(ctx, rel.Namespace)
	if err != nil || peer == nil {
		return ctrl.Result{}, err
	}
	key := sharing.HoldKey{Consumer: peer.Spec.ClusterID, Source: rel.Spec.Source}
	reason := sharingv1alpha1.ReleaseReasonFreed
	err = r.book.do(ctx, func(l *sharing.Ledger) ([]sharing.HoldKey, error) {
		if _, err := l.Release(key); err != nil {
			reason = sharingv1alpha1.ReleaseReasonNotFound
			return nil, nil //nolint:nilerr // nothing held is the reason, recorded in status
		}
		return []sharing.HoldKey{key}, nil
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	now := metav1.NewTime(r.clock.Now())
	patch := client.MergeFrom(rel.DeepCopy())
	rel.Status.ReleasedTime = &now
	meta.SetStatusCondition(&rel.Status.Conditions, metav1.Condition{Type: sharingv1alpha1.ReleaseDone, Status: metav1.ConditionTrue, Reason: reason, Message: key.String(), ObservedGeneration: rel.Generation})
	sharing.SetReady(rel)
	if err := r.Status().Patch(ctx, rel, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to answer release %s: %w", klog.KObj(rel), err)
	}
	return ctrl.Result{}, nil
}

// spare is what this cluster's nodes can spare now.
func (b *base) spare(ctx context.Context) ([]sharing.NodeSpare, error) {
	var nodes corev1.NodeList
	if err := b.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("failed to list nodes: %w", err)
	}
	var pods corev1.PodList
	if err := b.List(ctx, &pods); err != nil {
		return nil, fmt.Errorf("failed to list pods: %w", err)
	}
	return sharing.Spare(nodes.Items, pods.Items), nil
}
