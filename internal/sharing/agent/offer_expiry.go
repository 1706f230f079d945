package agent

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// extendOffer moves the expiresAt of the Offer this provider wrote into
// the consumer to until, the expiry of its confirmed Reservation: the
// consumer keeps the offer's virtual nodes until then (package
// virtualnode), by the same clock rule as the provider frees the hold.
// An offer the consumer no longer has needs nothing.
func (b *base) extendOffer(ctx context.Context, peer *sharingv1alpha1.Peer, offer string, until time.Time) error {
	rem, err := b.remotes.Of(ctx, peer)
	if err != nil {
		return err
	}
	o := &sharingv1alpha1.Offer{}
	if err := rem.Get(ctx, client.ObjectKey{Namespace: rem.Namespace, Name: offer}, o); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("failed to get offer %q in consumer %q: %w", offer, peer.Spec.ClusterID, err)
	}
	if o.Spec.ExpiresAt.Time.Equal(until) {
		return nil
	}
	patch := client.MergeFromWithOptions(o.DeepCopy(), client.MergeFromWithOptimisticLock{})
	o.Spec.ExpiresAt = metav1.NewTime(until)
	if err := rem.Patch(ctx, o, patch); err != nil {
		return fmt.Errorf("failed to extend offer %q in consumer %q to its reservation's expiry: %w", offer, peer.Spec.ClusterID, err)
	}
	return nil
}
