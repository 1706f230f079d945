package sharing

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// A receiver of advertisements is a consumer's agent, or the broker's
// table, which receives as a consumer does. Both judge an advertisement
// with Precheck and, when it passes, by the prices PricesOf says hold,
// and write the result with Judgement.Record.

// Condition reasons of messages whose claims disagree with the peer that
// wrote them, the words of the API's status reasons of the same refusal.
const (
	// ReasonClusterIDMismatch: a registration claims another cluster ID
	// than its member's.
	ReasonClusterIDMismatch = string(sharingv1alpha1.AdvertisementReasonClusterIDMismatch)
	// ReasonConsumerMismatch: a Quote or Release claims another consumer
	// than the peer that wrote it.
	ReasonConsumerMismatch = string(sharingv1alpha1.AcknowledgementReasonConsumerMismatch)
)

// AnnotationFullPrices on an Advertisement is the prices of the last Full
// one, kept by the receiver as JSON: a Partial one carries none. The
// sender reads it too, and sends a Full in a Partial's place until the
// receiver holds the prices charged now.
const AnnotationFullPrices = "sharing.meridian.dev/full-prices"

// Judgement is a receiver's decision on an advertisement.
type Judgement struct {
	Decision       sharingv1alpha1.AdvertisementDecision
	Reason         sharingv1alpha1.AdvertisementReason
	Message        string
	AcceptedShapes []string
}

// Precheck judges what needs no policy: the advertisement comes from no
// Peer (peer is the one whose namespace holds it, nil when none), claims
// another cluster ID than that Peer's, is for another receiver than self,
// is invalid, or expired at now (with skew for the sender's clock). It
// returns nil when the policy decides.
func Precheck(adv *sharingv1alpha1.Advertisement, peer *sharingv1alpha1.Peer, self sharingv1alpha1.ClusterID, now time.Time, skew time.Duration) *Judgement {
	refuse := func(reason sharingv1alpha1.AdvertisementReason, format string, args ...any) *Judgement {
		return &Judgement{Decision: sharingv1alpha1.DecisionRefused, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case peer == nil:
		return refuse(sharingv1alpha1.AdvertisementReasonUnknownPeer, "no enabled Peer maps to namespace %q", adv.Namespace)
	case adv.Spec.ClusterID != peer.Spec.ClusterID:
		return refuse(sharingv1alpha1.AdvertisementReasonClusterIDMismatch, "written by peer %q (namespace %q) but claims to come from %q", peer.Spec.ClusterID, adv.Namespace, adv.Spec.ClusterID)
	case adv.Spec.Consumer != self:
		return refuse(sharingv1alpha1.AdvertisementReasonWrongConsumer, "made for consumer %q, this cluster is %q", adv.Spec.Consumer, self)
	}
	if errs := Validate(adv); len(errs) > 0 {
		return refuse(sharingv1alpha1.AdvertisementReasonInvalid, "%v", errs.ToAggregate())
	}
	if Expired(&adv.Spec, now, skew) {
		return refuse(sharingv1alpha1.AdvertisementReasonTimeToLive, "expired at %s (timestamp %s plus time-to-live %s)",
			ExpiresAt(&adv.Spec).Format(time.RFC3339), adv.Spec.Timestamp.Format(time.RFC3339), adv.Spec.TimeToLive.Duration)
	}
	return nil
}

// NoFullAdvertisement refuses a Partial advertisement whose prices are
// unknown (PricesOf is false).
func NoFullAdvertisement() Judgement {
	return Judgement{Decision: sharingv1alpha1.DecisionRefused, Reason: sharingv1alpha1.AdvertisementReasonNoFullAdvertisement,
		Message: "a Partial advertisement arrived before any Full one; its prices are unknown"}
}

// Record writes j into adv's status, with the Accepted and Expired
// conditions and the summary Ready, as the sender reads it back.
func (j Judgement) Record(adv *sharingv1alpha1.Advertisement) {
	st := &adv.Status
	st.Decision, st.Reason, st.Message, st.AcceptedShapes = j.Decision, j.Reason, j.Message, j.AcceptedShapes
	st.ObservedGeneration = adv.Generation
	exp := metav1.NewTime(ExpiresAt(&adv.Spec))
	st.ExpiresAt = &exp
	accepted := metav1.Condition{Type: sharingv1alpha1.AdvertisementAccepted, Status: metav1.ConditionFalse,
		Reason: string(sharingv1alpha1.AdvertisementReasonPolicyRefused), Message: string(j.Reason) + ": " + j.Message, ObservedGeneration: adv.Generation}
	switch {
	case j.Decision == sharingv1alpha1.DecisionAccepted:
		accepted.Status, accepted.Reason = metav1.ConditionTrue, string(sharingv1alpha1.AdvertisementReasonPolicyAccepted)
	case j.Reason == sharingv1alpha1.AdvertisementReasonUnknownPeer, j.Reason == sharingv1alpha1.AdvertisementReasonInvalid, j.Reason == sharingv1alpha1.AdvertisementReasonTimeToLive:
		accepted.Reason = string(j.Reason)
	}
	meta.SetStatusCondition(&st.Conditions, accepted)
	expired := metav1.Condition{Type: sharingv1alpha1.AdvertisementExpired, Status: metav1.ConditionFalse,
		Reason: sharingv1alpha1.AdvertisementConditionReasonRenewed, Message: "expires at " + exp.Format(time.RFC3339), ObservedGeneration: adv.Generation}
	if j.Reason == sharingv1alpha1.AdvertisementReasonTimeToLive {
		expired.Status, expired.Reason, expired.Message = metav1.ConditionTrue, string(sharingv1alpha1.AdvertisementReasonTimeToLive), j.Message
	}
	meta.SetStatusCondition(&st.Conditions, expired)
	SetReady(adv)
}

// KeepFullPrices records a Full advertisement's prices in its annotation
// AnnotationFullPrices, for the Partial ones after it, and reports whether
// that changed adv; a Partial one is left alone.
func KeepFullPrices(adv *sharingv1alpha1.Advertisement) (bool, error) {
	if adv.Spec.Type == sharingv1alpha1.AdvertisementPartial {
		return false, nil
	}
	raw, err := json.Marshal(adv.Spec.Prices)
	if err != nil {
		return false, fmt.Errorf("failed to encode the prices of advertisement %s/%s: %w", adv.Namespace, adv.Name, err)
	}
	if adv.Annotations[AnnotationFullPrices] == string(raw) {
		return false, nil
	}
	if adv.Annotations == nil {
		adv.Annotations = map[string]string{}
	}
	adv.Annotations[AnnotationFullPrices] = string(raw)
	return true, nil
}

// PricesOf returns the prices that hold for adv: its own when it is Full,
// else those kept from the last Full one (KeptPrices); false when there
// are none yet.
func PricesOf(adv *sharingv1alpha1.Advertisement) ([]sharingv1alpha1.Price, bool) {
	if adv.Spec.Type != sharingv1alpha1.AdvertisementPartial {
		return adv.Spec.Prices, true
	}
	return KeptPrices(adv)
}

// KeptPrices are the prices the receiver kept from the last Full
// advertisement (AnnotationFullPrices); false when it kept none.
func KeptPrices(adv *sharingv1alpha1.Advertisement) ([]sharingv1alpha1.Price, bool) {
	raw, ok := adv.Annotations[AnnotationFullPrices]
	if !ok {
		return nil, false
	}
	var ps []sharingv1alpha1.Price
	if err := json.Unmarshal([]byte(raw), &ps); err != nil {
		return nil, false
	}
	return ps, true
}
