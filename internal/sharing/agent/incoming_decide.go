package agent

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// IncomingQuery is the Rego rule that decides an incoming advertisement.
const IncomingQuery = "data.meridian.sharing.incoming.decision"

// Reasons the agent refuses an advertisement with before any policy runs.
const (
	ReasonClusterIDMismatch   = "ClusterIDMismatch"
	ReasonWrongConsumer       = "WrongConsumer"
	ReasonNoFullAdvertisement = "NoFullAdvertisement"
)

// AnnotationFullPrices on an Advertisement is the prices of the last Full
// one, kept by the receiver as JSON: a Partial one carries none. The
// sender reads it too, and sends a Full in a Partial's place until the
// receiver holds the prices charged now (pricesKept).
const AnnotationFullPrices = "sharing.meridian.dev/full-prices"

// verdict is the receiver's decision on an advertisement.
type verdict struct {
	Decision       sharingv1alpha1.AdvertisementDecision
	Reason         string
	Message        string
	AcceptedShapes []string `json:"acceptedShapes"`
}

// precheck decides what needs no policy: the advertisement comes from no
// Peer (by the namespace it was written into), claims another cluster ID
// than that Peer's, is for another consumer, is invalid, or expired. It
// returns nil when the policy decides.
func precheck(adv *sharingv1alpha1.Advertisement, peer *sharingv1alpha1.Peer, self sharingv1alpha1.ClusterID, now time.Time, skew time.Duration) *verdict {
	refuse := func(reason, format string, args ...any) *verdict {
		return &verdict{Decision: sharingv1alpha1.DecisionRefused, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case peer == nil:
		return refuse(sharingv1alpha1.AdvertisementReasonUnknownPeer, "no enabled Peer maps to namespace %q", adv.Namespace)
	case adv.Spec.ClusterID != peer.Spec.ClusterID:
		return refuse(ReasonClusterIDMismatch, "written by peer %q (namespace %q) but claims to come from %q", peer.Spec.ClusterID, adv.Namespace, adv.Spec.ClusterID)
	case adv.Spec.Consumer != self:
		return refuse(ReasonWrongConsumer, "made for consumer %q, this cluster is %q", adv.Spec.Consumer, self)
	}
	if errs := sharing.Validate(adv); len(errs) > 0 {
		return refuse(sharingv1alpha1.AdvertisementReasonInvalid, "%v", errs.ToAggregate())
	}
	if sharing.Expired(&adv.Spec, now, skew) {
		return refuse(sharingv1alpha1.AdvertisementReasonTimeToLive, "expired at %s (timestamp %s plus time-to-live %s)",
			sharing.ExpiresAt(&adv.Spec).Format(time.RFC3339), adv.Spec.Timestamp.Format(time.RFC3339), adv.Spec.TimeToLive.Duration)
	}
	return nil
}

// policyInput is the input document of IncomingQuery.
type policyInput struct {
	Consumer      sharingv1alpha1.ClusterID `json:"consumer"`
	Peer          peerInput                 `json:"peer"`
	Advertisement advInput                  `json:"advertisement"`
}

type peerInput struct {
	ClusterID sharingv1alpha1.ClusterID `json:"clusterID"`
	Namespace string                    `json:"namespace"`
	Username  string                    `json:"username"`
	Region    string                    `json:"region"`
}

type advInput struct {
	Name         string       `json:"name"`
	Type         string       `json:"type"`
	Region       string       `json:"region"`
	Currency     string       `json:"currency"`
	Prices       []priceInput `json:"prices"`
	Availability []shapeInput `json:"availability"`
}

type priceInput struct {
	Resource    string  `json:"resource"`
	PerUnitHour float64 `json:"perUnitHour"`
}

type shapeInput struct {
	Name      string `json:"name"`
	CPUMilli  int64  `json:"cpuMilli"`
	MemoryMiB int64  `json:"memoryMiB"`
	Pods      int64  `json:"pods"`
	Count     int32  `json:"count"`
}

var periodHours = map[sharingv1alpha1.PricePeriod]int64{"": 1, sharingv1alpha1.PeriodHour: 1, sharingv1alpha1.PeriodDay: 24, sharingv1alpha1.PeriodMonth: 730}

// perUnitHour is a price per core of cpu, per GiB of memory or storage,
// per unit of anything else, per hour.
func perUnitHour(p sharingv1alpha1.Price) float64 {
	amount, _ := new(big.Rat).SetString(p.Amount.AsDec().String())
	unit, _ := new(big.Rat).SetString(p.Unit.AsDec().String())
	if amount == nil || unit == nil || unit.Sign() <= 0 {
		return 0
	}
	r := new(big.Rat).Quo(amount, unit)
	switch corev1.ResourceName(p.Resource) {
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage:
		r.Mul(r, big.NewRat(1<<30, 1))
	}
	r.Quo(r, big.NewRat(periodHours[p.Period], 1))
	f, _ := r.Float64()
	return f
}

// inputOf builds the policy's input; prices are those of a Full
// advertisement, or for a Partial one those the receiver kept from the
// last Full (fullPrices, AnnotationFullPrices).
func inputOf(adv *sharingv1alpha1.Advertisement, peer *sharingv1alpha1.Peer, self sharingv1alpha1.ClusterID, prices []sharingv1alpha1.Price) policyInput {
	in := policyInput{
		Consumer: self,
		Peer: peerInput{ClusterID: peer.Spec.ClusterID, Namespace: peer.Spec.Namespace,
			Username: peer.Spec.Identity.Username, Region: peer.Spec.Region},
		Advertisement: advInput{Name: adv.Name, Type: string(adv.Spec.Type), Region: adv.Spec.Region,
			Prices: []priceInput{}, Availability: []shapeInput{}},
	}
	for _, p := range prices {
		in.Advertisement.Currency = p.Currency
		in.Advertisement.Prices = append(in.Advertisement.Prices, priceInput{Resource: p.Resource, PerUnitHour: perUnitHour(p)})
	}
	for _, s := range adv.Spec.Availability {
		cpu, mem, pods := s.Resources[corev1.ResourceCPU], s.Resources[corev1.ResourceMemory], s.Resources[corev1.ResourcePods]
		in.Advertisement.Availability = append(in.Advertisement.Availability, shapeInput{
			Name: s.Name, CPUMilli: cpu.MilliValue(), MemoryMiB: mem.Value() / (1 << 20), Pods: pods.Value(), Count: s.Count,
		})
	}
	return in
}

// pricesOf returns the prices the policy judges an advertisement by and
// whether they are known: its own when Full, else those kept from the last
// Full one.
func pricesOf(adv *sharingv1alpha1.Advertisement) ([]sharingv1alpha1.Price, bool) {
	if adv.Spec.Type != sharingv1alpha1.AdvertisementPartial {
		return adv.Spec.Prices, true
	}
	return keptPrices(adv)
}

// keptPrices are the prices the receiver kept from the last Full
// advertisement (AnnotationFullPrices); false when it kept none.
func keptPrices(adv *sharingv1alpha1.Advertisement) ([]sharingv1alpha1.Price, bool) {
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

// outcome reads the policy's result.
func outcome(result []byte) (verdict, error) {
	var r struct {
		Accepted       bool     `json:"accepted"`
		Reason         string   `json:"reason"`
		Message        string   `json:"message"`
		AcceptedShapes []string `json:"acceptedShapes"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return verdict{}, fmt.Errorf("failed to read the incoming policy's decision %s: %w", result, err)
	}
	if r.Reason == "" {
		return verdict{}, fmt.Errorf("the incoming policy's decision %s has no reason", result)
	}
	v := verdict{Decision: sharingv1alpha1.DecisionRefused, Reason: r.Reason, Message: r.Message}
	if r.Accepted {
		v.Decision, v.AcceptedShapes = sharingv1alpha1.DecisionAccepted, r.AcceptedShapes
	}
	return v, nil
}
