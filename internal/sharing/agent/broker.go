package agent

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

// ReasonBrokerSilent closes an auction whose broker wrote no result by
// the deadline plus the auction window.
const ReasonBrokerSilent = "BrokerDidNotAnswer"

// brokerOf returns the enabled Peer that runs this cluster's auctions: a
// broker (spec.broker) this cluster borrows through.
func brokerOf(peers []sharingv1alpha1.Peer) *sharingv1alpha1.Peer {
	for i := range peers {
		if peers[i].Spec.Broker && borrowsFrom(&peers[i]) {
			return &peers[i]
		}
	}
	return nil
}

// brokered moves on an auction the broker runs: before the deadline the
// Quote is sent to the broker (into this cluster's namespace there); after
// it, the broker's result, written into the status of that copy, is copied
// into the local Quote. The broker forwards, collects, closes with
// sharing.CloseAuction and acknowledges; this cluster only learns the
// result.
func (r *auction) brokered(ctx context.Context, q *sharingv1alpha1.Quote, broker *sharingv1alpha1.Peer) (ctrl.Result, error) {
	rem, err := r.remotes.Of(ctx, broker)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.clock.Now()
	if now.Before(q.Spec.Deadline.Time) {
		out := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: q.Name, Namespace: rem.Namespace}, Spec: q.Spec}
		if err := rem.Create(ctx, out); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("failed to send quote %s to broker %q: %w", klog.KObj(q), broker.Spec.ClusterID, err)
		}
		return ctrl.Result{RequeueAfter: q.Spec.Deadline.Sub(now) + 100*time.Millisecond}, nil
	}
	there := &sharingv1alpha1.Quote{}
	err = rem.Get(ctx, client.ObjectKey{Namespace: rem.Namespace, Name: q.Name}, there)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("failed to read the result of quote %s from broker %q: %w", klog.KObj(q), broker.Spec.ClusterID, err)
	}
	result := meta.FindStatusCondition(there.Status.Conditions, sharingv1alpha1.QuoteAnswered)
	if result == nil {
		if wait := q.Spec.Deadline.Add(r.opts.AuctionWindow).Sub(now); wait > 0 {
			return ctrl.Result{RequeueAfter: min(wait, time.Second)}, nil
		}
		result = &metav1.Condition{Type: sharingv1alpha1.QuoteAnswered, Status: metav1.ConditionFalse, Reason: ReasonBrokerSilent,
			Message: fmt.Sprintf("broker %q wrote no result by %s", broker.Spec.ClusterID, q.Spec.Deadline.Add(r.opts.AuctionWindow).UTC().Format(time.RFC3339))}
	}
	patch := client.MergeFrom(q.DeepCopy())
	q.Status.Offer, q.Status.Provider, q.Status.Price = there.Status.Offer, there.Status.Provider, there.Status.Price
	meta.SetStatusCondition(&q.Status.Conditions, metav1.Condition{Type: result.Type, Status: result.Status, Reason: result.Reason,
		Message: fmt.Sprintf("through broker %q: %s", broker.Spec.ClusterID, result.Message)})
	sharing.SetReady(q)
	if err := r.Status().Patch(ctx, q, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to close auction %s: %w", klog.KObj(q), err)
	}
	log.FromContext(ctx).Info("Auction closed by the broker", "quote", klog.KObj(q), "broker", broker.Spec.ClusterID, "provider", q.Status.Provider)
	if result.Status != metav1.ConditionTrue {
		return ctrl.Result{RequeueAfter: r.opts.AuctionRetry}, nil
	}
	return ctrl.Result{}, nil
}

// forgetAtBroker deletes the broker's copy of an auction that is deleted
// (lost, or won and released), so that the
// next auction of the same application, which has the same name, is sent
// afresh.
func (r *auction) forgetAtBroker(ctx context.Context, q *sharingv1alpha1.Quote) error {
	peers, err := r.peers(ctx)
	if err != nil {
		return err
	}
	broker := brokerOf(peers)
	if broker == nil {
		return nil
	}
	rem, err := r.remotes.Of(ctx, broker)
	if err != nil {
		return err
	}
	there := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: q.Name, Namespace: rem.Namespace}}
	if err := rem.Delete(ctx, there); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete the lost auction %s at broker %q: %w", klog.KObj(q), broker.Spec.ClusterID, err)
	}
	return nil
}
