package broker

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// Reasons the broker closes a consumer's Release without forwarding it.
const (
	ReasonNotHandedOver = "NotHandedOver"
	ReasonWrongSource   = "NotAnOffer"
)

// releaseTarget is where a consumer's Release goes: the provider member
// that holds the won offer and that offer's name there (the forwarded
// quote's name, which the provider's Reservation is keyed by).
type releaseTarget struct {
	Provider *member
	Offer    string
}

// routeRelease decides a Release consumer wrote into its namespace at the
// broker. It names, by spec.source, the offer the broker handed over to
// consumer (handed: that copy, nil when consumer has none of that name);
// the copy's AnnotationWonOffer says which provider's offer it is. ok is
// false, with the reason and message to close the Release with, when it
// claims another consumer, names no offer, an offer not handed over, or
// one whose provider no longer lends through the broker.
func routeRelease(rel *sharingv1alpha1.Release, consumer *member, handed *sharingv1alpha1.Offer, members map[string]*member) (releaseTarget, string, string, bool) {
	switch {
	case rel.Spec.Consumer != consumer.ClusterID:
		return releaseTarget{}, sharing.ReasonConsumerMismatch, fmt.Sprintf("spec.consumer: written by member %q, claims %q", consumer.ClusterID, rel.Spec.Consumer), false
	case rel.Spec.Source.Kind != sharingv1alpha1.SourceOffer:
		return releaseTarget{}, ReasonWrongSource, fmt.Sprintf("spec.source.kind: %q, the broker releases only %q (an advertisement is the broker's own)", rel.Spec.Source.Kind, sharingv1alpha1.SourceOffer), false
	case handed == nil:
		return releaseTarget{}, ReasonNotHandedOver, fmt.Sprintf("spec.source.name: the broker handed no offer %q to %q", rel.Spec.Source.Name, consumer.ClusterID), false
	}
	ns, name, found := strings.Cut(handed.Annotations[AnnotationWonOffer], "/")
	p := members[ns]
	if !found || name == "" || p == nil || !p.lends() || handed.Spec.Provider != p.ClusterID {
		return releaseTarget{}, ReasonNotHandedOver, fmt.Sprintf("spec.source.name: offer %q was not won from a provider registered at the broker", rel.Spec.Source.Name), false
	}
	return releaseTarget{Provider: p, Offer: name}, "", "", true
}

// forwardedRelease is the Release the broker writes into the provider:
// from the broker (the consumer the provider's Reservation names), for
// the provider's own offer.
func forwardedRelease(self sharingv1alpha1.ClusterID, rel *sharingv1alpha1.Release, t releaseTarget) sharingv1alpha1.ReleaseSpec {
	return sharingv1alpha1.ReleaseSpec{Consumer: self, Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: t.Offer},
		AppID: rel.Spec.AppID, Reason: rel.Spec.Reason}
}

// releaseReport is what the consumer's Release reports once the provider
// answered the forwarded one (there): its Released condition and time,
// with the provider named. ok is false while the provider has not.
func releaseReport(there *sharingv1alpha1.Release, provider sharingv1alpha1.ClusterID, generation int64) (metav1.Condition, *metav1.Time, bool) {
	c := meta.FindStatusCondition(there.Status.Conditions, sharingv1alpha1.ReleaseDone)
	if c == nil {
		return metav1.Condition{}, nil, false
	}
	return metav1.Condition{Type: sharingv1alpha1.ReleaseDone, Status: c.Status, Reason: c.Reason, ObservedGeneration: generation,
		Message: fmt.Sprintf("provider %q: %s", provider, c.Message)}, there.Status.ReleasedTime, true
}

// endsAt is the expiresAt of a handed-over offer once its release is
// reported at releasedAt: the release time when that is earlier, so that
// the consumer's virtual nodes go by the same clock rule as at expiry.
// ok is false when expiresAt needs no change.
func endsAt(handed *sharingv1alpha1.Offer, releasedAt *metav1.Time, now time.Time) (metav1.Time, bool) {
	at := metav1.NewTime(now)
	if releasedAt != nil {
		at = *releasedAt
	}
	if !at.Time.Before(handed.Spec.ExpiresAt.Time) {
		return metav1.Time{}, false
	}
	return at, true
}
