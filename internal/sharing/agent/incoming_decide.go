package agent

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// IncomingQuery is the Rego rule that decides an incoming advertisement.
const IncomingQuery = "data.meridian.sharing.incoming.decision"

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

// perUnitHour is a price per core of cpu, per GiB of memory or storage,
// per unit of anything else, per hour, as the policy reads it: counted
// exactly (sharing.PerUnitHour) and made a JSON number only here, for
// Rego; 0 for a price that has none.
func perUnitHour(p sharingv1alpha1.Price) float64 {
	m, ok := sharing.PerUnitHour(p)
	if !ok {
		return 0
	}
	return m.Float64()
}

// inputOf builds the policy's input; prices are those of a Full
// advertisement, or for a Partial one those the receiver kept from the
// last Full (sharing.PricesOf).
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

// outcome reads the policy's result.
func outcome(result []byte) (sharing.Judgement, error) {
	var r struct {
		Accepted       bool     `json:"accepted"`
		Reason         string   `json:"reason"`
		Message        string   `json:"message"`
		AcceptedShapes []string `json:"acceptedShapes"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return sharing.Judgement{}, fmt.Errorf("failed to read the incoming policy's decision %s: %w", result, err)
	}
	if r.Reason == "" {
		return sharing.Judgement{}, fmt.Errorf("the incoming policy's decision %s has no reason", result)
	}
	v := sharing.Judgement{Decision: sharingv1alpha1.DecisionRefused, Reason: sharingv1alpha1.AdvertisementReasonPolicyRefused, Message: r.Message}
	if r.Accepted {
		v.Decision, v.Reason, v.AcceptedShapes = sharingv1alpha1.DecisionAccepted, sharingv1alpha1.AdvertisementReasonPolicyAccepted, r.AcceptedShapes
	}
	switch reason := sharingv1alpha1.AdvertisementReason(r.Reason); {
	case reason == v.Reason:
	case !r.Accepted && policyRefusals[reason]:
		v.Reason = reason
	default:
		// A word of the policy's own, which status.reason does not take:
		// it leads the message, so nothing the policy said is lost.
		v.Message = joinReason(r.Reason, r.Message)
	}
	return v, nil
}

// policyRefusals are the reasons an incoming policy refuses with that
// status.reason takes as they are (the shipped policy's); any other is
// recorded as PolicyRefused with the word in the message.
var policyRefusals = map[sharingv1alpha1.AdvertisementReason]bool{
	sharingv1alpha1.AdvertisementReasonUntrustedPeer:       true,
	sharingv1alpha1.AdvertisementReasonCurrencyNotAccepted: true,
	sharingv1alpha1.AdvertisementReasonPriceAboveCeiling:   true,
	sharingv1alpha1.AdvertisementReasonNoShapeLargeEnough:  true,
}

// joinReason is a policy's own reason word and message as one message.
func joinReason(reason, message string) string {
	if message == "" {
		return reason
	}
	return reason + ": " + message
}
