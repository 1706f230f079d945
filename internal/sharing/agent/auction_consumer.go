package agent

import (
	"context"
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
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// LabelAuction marks the Quotes in the agent's namespace that are this
// consumer's own auctions (the record that survives a restart).
const LabelAuction = "sharing.meridian.dev/auction"

// pending starts an auction for the unschedulable pods of an application
// that fit no accepted advertisement.
type pending struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=quotes,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=offers,verbs=get;list;watch;update;patch

func (r *pending) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-pending-pods").
		For(&corev1.Pod{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return unschedulable(o.(*corev1.Pod)) }))).
		Complete(r)
}

// Reconcile starts the auction of the pod's application unless one was.
func (r *pending) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Get(ctx, req.NamespacedName, pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !unschedulable(pod) {
		return ctrl.Result{}, nil
	}
	app := appOf(pod)
	name := quoteName(r.opts.ClusterID, app)
	if err := r.Get(ctx, client.ObjectKey{Namespace: r.opts.Namespace, Name: name}, &sharingv1alpha1.Quote{}); err == nil {
		// An auction runs or ran for the app; one without a winner is
		// deleted after AuctionRetry, then this pod may start the next.
		return ctrl.Result{RequeueAfter: r.opts.AuctionRetry}, nil
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(pod.Namespace)); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list pods in %q: %w", pod.Namespace, err)
	}
	var advs sharingv1alpha1.AdvertisementList
	if err := r.List(ctx, &advs); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list advertisements: %w", err)
	}
	spec, ok := quoteFor(r.opts.ClusterID, app, pods.Items, advs.Items, r.clock.Now().Truncate(time.Second), r.opts.AuctionWindow)
	if !ok {
		return ctrl.Result{}, nil
	}
	q := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.opts.Namespace, Labels: map[string]string{LabelAuction: "true"},
		Finalizers: []string{FinalizerRelease}}, Spec: spec}
	if err := r.Create(ctx, q); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("failed to start the auction %q: %w", name, err)
	}
	log.FromContext(ctx).Info("Auction started", "quote", klog.KObj(q), "app", app)
	return ctrl.Result{RequeueAfter: r.opts.AuctionWindow + r.opts.AuctionRetry}, nil
}

// auction runs this consumer's auctions: sends each Quote to the provider
// peers, and at the deadline closes it with sharing.CloseAuction, records
// the verdicts on the Offers and acknowledges them.
type auction struct{ *base }

func (r *auction) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-auction").
		For(&sharingv1alpha1.Quote{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == r.opts.Namespace && o.GetLabels()[LabelAuction] == "true"
		}))).
		Complete(r)
}

// Reconcile moves one auction on.
func (r *auction) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	q := &sharingv1alpha1.Quote{}
	if err := r.Get(ctx, req.NamespacedName, q); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !q.DeletionTimestamp.IsZero() {
		return r.finish(ctx, q)
	}
	if err := r.ensureFinalizer(ctx, q); err != nil {
		return ctrl.Result{}, err
	}
	if c := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.QuoteAnswered); c != nil {
		del, wait := retryDue(c, r.clock.Now(), r.opts.AuctionRetry)
		if !del {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
		if err := r.Delete(ctx, q); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to delete the lost auction %s: %w", klog.KObj(q), err)
		}
		return ctrl.Result{}, nil
	}
	peers, err := r.peers(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	if b := brokerOf(peers); b != nil {
		// A broker runs this cluster's auctions (Peer.spec.broker).
		return r.brokered(ctx, q, b)
	}
	now := r.clock.Now()
	if now.Before(q.Spec.Deadline.Time) {
		// Send: creating the same name again is a no-op, so a restart
		// sends nothing twice.
		for i := range peers {
			p := &peers[i]
			if !borrowsFrom(p) {
				continue
			}
			rem, err := r.remotes.Of(ctx, p)
			if err != nil {
				logger.Error(err, "Quote not sent", "peer", klog.KObj(p))
				continue
			}
			out := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: q.Name, Namespace: rem.Namespace}, Spec: q.Spec}
			if err := rem.Create(ctx, out); err != nil && !apierrors.IsAlreadyExists(err) {
				logger.Error(err, "Quote not sent", "peer", klog.KObj(p))
			}
		}
		return ctrl.Result{RequeueAfter: q.Spec.Deadline.Sub(now) + 100*time.Millisecond}, nil
	}

	// Collect: offers for this quote in the namespaces of provider peers,
	// from the provider that wrote them. They are read from the API
	// server, not the cache, so that a verdict this agent recorded a
	// moment ago is seen (sharing.CloseAuction keeps it).
	var offers sharingv1alpha1.OfferList
	if err := r.reader.List(ctx, &offers); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list offers: %w", err)
	}
	var bids []sharing.Bid
	from := map[string]*sharingv1alpha1.Peer{}
	for i := range offers.Items {
		o := &offers.Items[i]
		p := peerOfNamespace(peers, o.Namespace)
		if o.Spec.Quote != q.Name || p == nil || !borrowsFrom(p) || o.Spec.Provider != p.Spec.ClusterID {
			continue
		}
		b := sharing.Bid{Offer: o, ReceivedAt: o.CreationTimestamp.Time}
		if p.Status.Latency != nil {
			b.Latency = p.Status.Latency.Duration
		}
		bids = append(bids, b)
		from[o.Namespace+"/"+o.Name] = p
	}
	closed := sharing.CloseAuction(q, bids, now)
	// Every verdict is recorded before any is acknowledged: an agent
	// restarted in between reads the decision back and acknowledges the
	// same winner, never a second one.
	for _, v := range closed.Verdicts {
		before := v.Offer.DeepCopy()
		if !v.Record() {
			continue
		}
		if err := r.Status().Patch(ctx, v.Offer, client.MergeFrom(before)); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to record the auction's verdict on offer %s: %w", klog.KObj(v.Offer), err)
		}
	}
	for _, v := range closed.Verdicts {
		if err := r.acknowledge(ctx, from[v.Offer.Namespace+"/"+v.Offer.Name], q, v.Offer, v.Selected); err != nil {
			return ctrl.Result{}, err
		}
	}
	patch := client.MergeFrom(q.DeepCopy())
	cond := metav1.Condition{Type: sharingv1alpha1.QuoteAnswered, Status: metav1.ConditionFalse, Reason: sharingv1alpha1.QuoteReasonNoCapacity,
		Message: fmt.Sprintf("no fitting offer among %d", len(closed.Verdicts))}
	if w := closed.Winner; w != nil {
		q.Status.Offer = w.Namespace + "/" + w.Name
		q.Status.Provider, q.Status.Price = w.Spec.Provider, closed.Price()
		cond.Status, cond.Reason = metav1.ConditionTrue, sharingv1alpha1.QuoteReasonOffered
		cond.Message = fmt.Sprintf("won by %s at %s per hour among %d offers", w.Spec.Provider, closed.PriceString(), len(closed.Verdicts))
	}
	meta.SetStatusCondition(&q.Status.Conditions, cond)
	sharing.SetReady(q)
	if err := r.Status().Patch(ctx, q, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to close auction %s: %w", klog.KObj(q), err)
	}
	logger.Info("Auction closed", "quote", klog.KObj(q), "offer", q.Status.Offer, "recorded", closed.Recorded)
	if closed.Winner == nil {
		return ctrl.Result{RequeueAfter: r.opts.AuctionRetry}, nil
	}
	return ctrl.Result{}, nil
}

// acknowledge writes into the provider that this consumer takes the offer
// (confirm) or declines it, so that the provider frees it before expiry.
func (r *auction) acknowledge(ctx context.Context, p *sharingv1alpha1.Peer, q *sharingv1alpha1.Quote, o *sharingv1alpha1.Offer, confirm bool) error {
	rem, err := r.remotes.Of(ctx, p)
	if err != nil {
		return err
	}
	ack := &sharingv1alpha1.Acknowledgement{
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: rem.Namespace},
		Spec:       sharingv1alpha1.AcknowledgementSpec{Consumer: r.opts.ClusterID, Offer: o.Name, Quote: o.Spec.Quote, AppID: q.Spec.AppID, Confirm: confirm},
	}
	if err := rem.Create(ctx, ack); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to acknowledge offer %s to peer %q: %w", klog.KObj(o), p.Spec.ClusterID, err)
	}
	return nil
}

// retryDue says whether a closed auction is deleted at now, so that the
// app's pods may start another: one that found no offer, AuctionRetry
// after it closed; one that was won, never. wait is how long until it is.
func retryDue(answered *metav1.Condition, now time.Time, retry time.Duration) (bool, time.Duration) {
	if answered.Status == metav1.ConditionTrue {
		return false, 0
	}
	left := answered.LastTransitionTime.Add(retry).Sub(now)
	return left <= 0, max(left, 0)
}
