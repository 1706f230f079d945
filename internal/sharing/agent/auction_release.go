package agent

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// FinalizerRelease is on this consumer's auction Quotes: a won auction
// that is deleted (the application no longer needs it) releases its offer
// before it goes, so the provider frees the reservation at once instead
// of at its expiry.
const FinalizerRelease = "sharing.meridian.dev/release"

// releaseOf decides where the offer of auction q, which is going away, is
// released and what the Release says. A won direct auction's offer lies in
// the namespace of the provider's Peer (q.status.offer): the Release goes
// into that provider, for that offer. A won brokered auction's offer was
// handed over at the broker under q's name: the Release goes into this
// cluster's namespace at the broker, which forwards it. ok is false when
// there is nothing to release (the auction was not won) or nobody to
// release it to (the Peer is gone or disabled); the Quote then goes
// without a Release and the reservation lapses at its expiry.
func releaseOf(q *sharingv1alpha1.Quote, peers []sharingv1alpha1.Peer, self sharingv1alpha1.ClusterID) (*sharingv1alpha1.Peer, sharingv1alpha1.ReleaseSpec, bool) {
	if !meta.IsStatusConditionTrue(q.Status.Conditions, sharingv1alpha1.QuoteAnswered) {
		return nil, sharingv1alpha1.ReleaseSpec{}, false
	}
	spec := sharingv1alpha1.ReleaseSpec{Consumer: self, AppID: q.Spec.AppID, Reason: fmt.Sprintf("auction %s was deleted", q.Name)}
	ns, name, found := strings.Cut(q.Status.Offer, "/")
	if p := peerOfNamespace(peers, ns); found && p != nil && !p.Spec.Broker && borrowsFrom(p) && p.Spec.ClusterID == q.Status.Provider {
		spec.Source = sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: name}
		return p, spec, true
	}
	if b := brokerOf(peers); b != nil {
		spec.Source = sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: q.Name}
		return b, spec, true
	}
	return nil, sharingv1alpha1.ReleaseSpec{}, false
}

// finish releases the offer of a deleted auction (releaseOf) and lets the
// Quote go. The Release is named after the Quote, so writing it again
// after a restart is a no-op.
func (r *auction) finish(ctx context.Context, q *sharingv1alpha1.Quote) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(q, FinalizerRelease) {
		return ctrl.Result{}, nil
	}
	peers, err := r.peers(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	if p, spec, ok := releaseOf(q, peers, r.opts.ClusterID); ok {
		rem, err := r.remotes.Of(ctx, p)
		if err != nil {
			return ctrl.Result{}, err
		}
		rel := &sharingv1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: ReleaseName(q), Namespace: rem.Namespace}, Spec: spec}
		if err := rem.Create(ctx, rel); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("failed to release the offer of auction %s to %q: %w", klog.KObj(q), p.Spec.ClusterID, err)
		}
		log.FromContext(ctx).Info("Offer released", "quote", klog.KObj(q), "to", p.Spec.ClusterID, "offer", spec.Source.Name)
	}
	// The broker's copy goes too, so that the application's next auction,
	// whose Quote has the same name, is run afresh.
	if err := r.forgetAtBroker(ctx, q); err != nil {
		return ctrl.Result{}, err
	}
	patch := client.MergeFrom(q.DeepCopy())
	controllerutil.RemoveFinalizer(q, FinalizerRelease)
	if err := r.Patch(ctx, q, patch); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("failed to let auction %s go: %w", klog.KObj(q), err)
	}
	return ctrl.Result{}, nil
}

// ReleaseName names the Release of the auction q: its name and UID, since
// every auction of an application has the same name and a Release stays,
// so that the application's next won auction is released too, while a
// restarted agent writes the same Release again.
func ReleaseName(q *sharingv1alpha1.Quote) string {
	return q.Name + "-" + string(q.UID)[:min(8, len(q.UID))]
}

// ensureFinalizer puts FinalizerRelease on an auction that lacks it (one
// started before it existed).
func (r *auction) ensureFinalizer(ctx context.Context, q *sharingv1alpha1.Quote) error {
	if controllerutil.ContainsFinalizer(q, FinalizerRelease) {
		return nil
	}
	patch := client.MergeFrom(q.DeepCopy())
	controllerutil.AddFinalizer(q, FinalizerRelease)
	if err := r.Patch(ctx, q, patch); err != nil {
		return fmt.Errorf("failed to add the release finalizer to auction %s: %w", klog.KObj(q), err)
	}
	return nil
}
