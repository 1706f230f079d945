package broker

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// Reasons of a brokered auction's result in the consumer's Quote.
const (
	ReasonNotRegistered = "NotRegistered"
	ReasonNotConfirmed  = "WinnerDidNotConfirm"
)

// auctions runs the auctions consumers hand to the broker.
type auctions struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=quotes,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=quotes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=offers,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=offers/status,verbs=get;update;patch

func (r *auctions) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("broker-auctions").
		For(&sharingv1alpha1.Quote{}).
		Complete(r)
}

// Reconcile moves one auction on: forward before the deadline, decide and
// acknowledge after it, report once the winner answered.
func (r *auctions) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	q := &sharingv1alpha1.Quote{}
	if err := r.Get(ctx, req.NamespacedName, q); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.QuoteAnswered) != nil {
		return ctrl.Result{}, nil
	}
	members, m, refusal, err := r.borrower(ctx, q.Namespace)
	if err != nil || m == nil {
		return ctrl.Result{}, err
	}
	if refusal != "" {
		return r.answer(ctx, q, sharing.Close{}, ReasonNotRegistered, refusal)
	}
	if errs := sharing.Validate(q); len(errs) > 0 || q.Spec.Consumer != m.ClusterID {
		return r.answer(ctx, q, sharing.Close{}, sharing.ReasonConsumerMismatch, fmt.Sprintf("spec.consumer: written by member %q, claims %q; %v", m.ClusterID, q.Spec.Consumer, errs.ToAggregate()))
	}
	name := forwardedName(m.ClusterID, q)
	now := r.clock.Now()
	if now.Before(q.Spec.Deadline.Time) {
		r.forward(ctx, q, m, members, name)
		return ctrl.Result{RequeueAfter: q.Spec.Deadline.Sub(now) + 100*time.Millisecond}, nil
	}
	bids, from, err := r.bids(ctx, members, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	closed := sharing.CloseAuction(q, bids, now)
	if err := r.record(ctx, closed); err != nil {
		return ctrl.Result{}, err
	}
	for _, v := range closed.Verdicts {
		if err := r.acknowledge(ctx, from[v.Offer.Namespace], q, name, v); err != nil {
			return ctrl.Result{}, err
		}
	}
	if closed.Winner == nil {
		return r.answer(ctx, q, closed, sharingv1alpha1.QuoteReasonNoCapacity, fmt.Sprintf("no fitting offer among %d", len(bids)))
	}
	return r.awaitConfirmation(ctx, q, closed, from[closed.Winner.Namespace], name)
}

// forward sends q to every provider registered at the broker but the
// consumer itself; creating the same name again is a no-op, so a restart
// sends nothing twice. A provider that cannot be reached is logged and
// left out of this auction.
func (r *auctions) forward(ctx context.Context, q *sharingv1alpha1.Quote, consumer *member, members map[string]*member, name string) {
	logger := log.FromContext(ctx)
	for _, p := range members {
		if !p.lends() || p.ClusterID == consumer.ClusterID {
			continue
		}
		rem, err := r.remotes.Of(ctx, p.Registration)
		if err != nil {
			logger.Error(err, "Quote not forwarded", "provider", p.ClusterID)
			continue
		}
		out := &sharingv1alpha1.Quote{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: rem.Namespace, Labels: map[string]string{sharingv1alpha1.LabelOnBehalfOf: string(consumer.ClusterID)}},
			Spec:       forwarded(r.opts.BrokerID, q),
		}
		if err := rem.Create(ctx, out); err != nil && !apierrors.IsAlreadyExists(err) {
			logger.Error(err, "Quote not forwarded", "provider", p.ClusterID)
		}
	}
}

// bids are the Offers for the forwarded quote name, each from the
// provider whose namespace holds it and which it names. They are read
// from the API server, not the cache, so that a verdict recorded a moment
// ago is seen (sharing.CloseAuction keeps it).
func (r *auctions) bids(ctx context.Context, members map[string]*member, name string) ([]sharing.Bid, map[string]*member, error) {
	var offers sharingv1alpha1.OfferList
	if err := r.reader.List(ctx, &offers); err != nil {
		return nil, nil, fmt.Errorf("failed to list offers: %w", err)
	}
	var bids []sharing.Bid
	from := map[string]*member{}
	for i := range offers.Items {
		o := &offers.Items[i]
		p := members[o.Namespace]
		if o.Spec.Quote != name || p == nil || !p.lends() || o.Spec.Provider != p.ClusterID {
			continue
		}
		b := sharing.Bid{Offer: o, ReceivedAt: o.CreationTimestamp.Time}
		if l := p.Registration.Status.Latency; l != nil {
			b.Latency = l.Duration
		}
		bids = append(bids, b)
		from[o.Namespace] = p
	}
	return bids, from, nil
}

// record writes each verdict into its Offer's Selected condition, before
// anything is acknowledged: the decision a restarted broker reads back.
func (r *auctions) record(ctx context.Context, closed sharing.Close) error {
	for _, v := range closed.Verdicts {
		before := v.Offer.DeepCopy()
		if !v.Record() {
			continue
		}
		if err := r.Status().Patch(ctx, v.Offer, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("failed to record the auction's verdict on offer %s: %w", klog.KObj(v.Offer), err)
		}
	}
	return nil
}

// acknowledge writes into the provider that the broker takes its offer
// (the winner) or declines it, as a consumer's agent does.
func (r *auctions) acknowledge(ctx context.Context, p *member, q *sharingv1alpha1.Quote, name string, v sharing.Verdict) error {
	rem, err := r.remotes.Of(ctx, p.Registration)
	if err != nil {
		return err
	}
	ack := &sharingv1alpha1.Acknowledgement{
		ObjectMeta: metav1.ObjectMeta{Name: v.Offer.Name, Namespace: rem.Namespace, Labels: map[string]string{sharingv1alpha1.LabelOnBehalfOf: string(q.Spec.Consumer)}},
		Spec:       sharingv1alpha1.AcknowledgementSpec{Consumer: r.opts.BrokerID, Offer: v.Offer.Name, Quote: name, AppID: q.Spec.AppID, Confirm: v.Selected},
	}
	if err := rem.Create(ctx, ack); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to acknowledge offer %s to provider %q: %w", klog.KObj(v.Offer), p.ClusterID, err)
	}
	return nil
}

// awaitConfirmation reads the winner's answer to its acknowledgement and
// reports the auction to the consumer once the provider reserved, or that
// it did not.
func (r *auctions) awaitConfirmation(ctx context.Context, q *sharingv1alpha1.Quote, closed sharing.Close, p *member, name string) (ctrl.Result, error) {
	rem, err := r.remotes.Of(ctx, p.Registration)
	if err != nil {
		return ctrl.Result{}, err
	}
	ack := &sharingv1alpha1.Acknowledgement{}
	if err := rem.Get(ctx, client.ObjectKey{Namespace: rem.Namespace, Name: closed.Winner.Name}, ack); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to read provider %q's answer to acknowledgement %q: %w", p.ClusterID, closed.Winner.Name, err)
	}
	switch ack.Status.Decision {
	case sharingv1alpha1.AckConfirmed:
		if err := r.handOver(ctx, q, closed.Winner); err != nil {
			return ctrl.Result{}, err
		}
		return r.answer(ctx, q, closed, sharingv1alpha1.QuoteReasonOffered, fmt.Sprintf("won by %s at %s per hour, reserved as %s (quote %s)",
			closed.Winner.Spec.Provider, moneyString(closed.Price()), ack.Status.Reservation, name))
	case sharingv1alpha1.AckRefused:
		return r.answer(ctx, q, sharing.Close{}, ReasonNotConfirmed, fmt.Sprintf("%s refused the acknowledgement: %s", closed.Winner.Spec.Provider, ack.Status.Reason))
	}
	if r.clock.Now().After(q.Spec.Deadline.Add(r.opts.ConfirmTimeout)) {
		return r.answer(ctx, q, sharing.Close{}, ReasonNotConfirmed, fmt.Sprintf("%s did not answer the acknowledgement within %s of the deadline", closed.Winner.Spec.Provider, r.opts.ConfirmTimeout))
	}
	return ctrl.Result{RequeueAfter: 200 * time.Millisecond}, nil
}

// AnnotationWonOffer is on the broker's copy of a winning offer in the
// consumer's namespace at the broker, with "<namespace>/<name>" of the
// offer the provider wrote.
const AnnotationWonOffer = "sharing.meridian.dev/won-offer"

// handOver copies the winning offer, as the provider left it at the broker
// once it confirmed (its expiresAt moved to its Reservation's expiry),
// into the consumer's namespace at the broker, named after the consumer's
// Quote and with the winner's Selected condition: the consumer may not
// read the provider's namespace, and its agent makes the auction's virtual
// nodes from this copy until expiresAt. It runs before the Quote is
// answered, so a consumer that sees the answer finds the copy; a broker
// restarted in between makes the same copy again.
func (r *auctions) handOver(ctx context.Context, q *sharingv1alpha1.Quote, winner *sharingv1alpha1.Offer) error {
	fresh := &sharingv1alpha1.Offer{}
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(winner), fresh); err != nil {
		return fmt.Errorf("failed to read the winning offer %s: %w", klog.KObj(winner), err)
	}
	spec := fresh.Spec
	spec.Quote = q.Name
	cp := &sharingv1alpha1.Offer{ObjectMeta: metav1.ObjectMeta{Name: q.Name, Namespace: q.Namespace,
		Annotations: map[string]string{AnnotationWonOffer: fresh.Namespace + "/" + fresh.Name}}, Spec: spec}
	if err := r.Create(ctx, cp); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("failed to hand the winning offer %s to consumer %q: %w", klog.KObj(winner), q.Spec.Consumer, err)
		}
		if err := r.reader.Get(ctx, client.ObjectKeyFromObject(cp), cp); err != nil {
			return fmt.Errorf("failed to read the winning offer handed to consumer %q: %w", q.Spec.Consumer, err)
		}
		if won := fresh.Namespace + "/" + fresh.Name; cp.Annotations[AnnotationWonOffer] != won {
			// Left by an earlier auction of the application, released:
			// this auction's offer replaces it.
			patch := client.MergeFrom(cp.DeepCopy())
			cp.Spec = spec
			metav1.SetMetaDataAnnotation(&cp.ObjectMeta, AnnotationWonOffer, won)
			if err := r.Patch(ctx, cp, patch); err != nil {
				return fmt.Errorf("failed to hand the winning offer %s to consumer %q: %w", klog.KObj(winner), q.Spec.Consumer, err)
			}
			cp.Status.Conditions = nil
		}
	}
	selected := meta.FindStatusCondition(fresh.Status.Conditions, sharingv1alpha1.OfferSelected)
	if selected == nil || meta.IsStatusConditionTrue(cp.Status.Conditions, sharingv1alpha1.OfferSelected) {
		return nil
	}
	patch := client.MergeFrom(cp.DeepCopy())
	meta.SetStatusCondition(&cp.Status.Conditions, *selected)
	sharing.SetReady(cp)
	if err := r.Status().Patch(ctx, cp, patch); err != nil {
		return fmt.Errorf("failed to mark the offer handed to consumer %q selected: %w", q.Spec.Consumer, err)
	}
	return nil
}

// answer closes the consumer's auction: the Quote's status at the broker,
// which the consumer's agent reads, says who won and at what price, or why
// nobody did.
func (r *auctions) answer(ctx context.Context, q *sharingv1alpha1.Quote, closed sharing.Close, reason, msg string) (ctrl.Result, error) {
	patch := client.MergeFrom(q.DeepCopy())
	cond := metav1.Condition{Type: sharingv1alpha1.QuoteAnswered, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: q.Generation}
	if w := closed.Winner; w != nil {
		cond.Status = metav1.ConditionTrue
		q.Status.Offer, q.Status.Provider, q.Status.Price = w.Namespace+"/"+w.Name, w.Spec.Provider, closed.Price()
	}
	meta.SetStatusCondition(&q.Status.Conditions, cond)
	sharing.SetReady(q)
	if err := r.Status().Patch(ctx, q, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to close auction %s: %w", klog.KObj(q), err)
	}
	log.FromContext(ctx).Info("Auction closed", "quote", klog.KObj(q), "reason", reason, "provider", q.Status.Provider)
	return ctrl.Result{}, nil
}

func moneyString(m *sharingv1alpha1.Money) string {
	if m == nil {
		return "an unknown price"
	}
	return m.Amount.String() + " " + m.Currency
}
