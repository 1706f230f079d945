package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ClusterID is the identity a cluster is known by to its peers: a DNS
// label, so that it can be a label value and part of a namespace name.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
type ClusterID string

// SecretReference names a Secret in the namespace of the object that holds
// the reference, and optionally one key in it.
type SecretReference struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// key in the Secret's data; empty means "kubeconfig".
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// NodeShape is a group of provider nodes that can each spare the same
// resources. Availability is advertised per shape, never as a cluster
// total, so that a consumer sizes each virtual node to what one provider
// node can run.
//
// The API server checks that cpu and memory are present; that they are
// greater than zero and that nothing is negative is checked by the agent
// (sharing.Validate), because CEL's quantity() on every entry of every
// shape exceeds the API server's cost budget.
//
// +kubebuilder:validation:XValidation:rule="'cpu' in self.resources",message="resources.cpu must be set and greater than zero",fieldPath=".resources"
// +kubebuilder:validation:XValidation:rule="'memory' in self.resources",message="resources.memory must be set and greater than zero",fieldPath=".resources"
type NodeShape struct {
	// name identifies the shape within its advertisement, for example
	// "4cpu-16gi-amd64"; virtual node names are built from it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// resources one node of this shape can spare: the largest sum of pod
	// requests one such provider node accepts (allocatable minus requested,
	// times the share). cpu and memory are required; "pods" and extended
	// resources are optional.
	// +required
	// +kubebuilder:validation:MaxProperties=16
	Resources map[corev1.ResourceName]resource.Quantity `json:"resources"`

	// count is how many provider nodes of this shape are advertised; the
	// consumer makes at most one virtual node of the shape per count.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	Count int32 `json:"count"`

	// labels of the provider nodes that a pod's node selector may ask for
	// (kubernetes.io/arch, kubernetes.io/os); the virtual nodes carry them.
	// +optional
	// +kubebuilder:validation:MaxProperties=8
	Labels map[string]string `json:"labels,omitempty"`
}

// PricePeriod is the time a price buys its unit of a resource for.
// +kubebuilder:validation:Enum=Hour;Day;Month
type PricePeriod string

// The periods a price may be given for.
const (
	PeriodHour  PricePeriod = "Hour"
	PeriodDay   PricePeriod = "Day"
	PeriodMonth PricePeriod = "Month"
)

// Price is what one unit of a resource costs for one period, for example
// 0.031 EUR per 1 cpu per Hour, or 0.004 EUR per 1Gi of memory per Hour.
//
// The agent checks that amount is not negative and unit is greater than
// zero (sharing.Validate); CEL's quantity() in a list exceeds the API
// server's cost budget.
type Price struct {
	// resource priced: a resource name such as "cpu", "memory" or
	// "nvidia.com/gpu".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Resource string `json:"resource"`

	// amount is the price of one unit for one period, a decimal such as
	// "0.031".
	// +required
	Amount resource.Quantity `json:"amount"`

	// currency of the amount, an ISO 4217 code such as "EUR".
	// +required
	// +kubebuilder:validation:MaxLength=3
	// +kubebuilder:validation:Pattern=`^[A-Z]{3}$`
	Currency string `json:"currency"`

	// unit is how much of the resource the amount buys: "1" for a CPU
	// core, "1Gi" for memory.
	// +required
	Unit resource.Quantity `json:"unit"`

	// period the amount buys the unit for.
	// +optional
	// +kubebuilder:default=Hour
	Period PricePeriod `json:"period,omitempty"`
}

// Money is an amount in a currency for a period, the price of an offer.
// The agent checks that amount is not negative (sharing.Validate).
type Money struct {
	// amount is a decimal such as "1.25".
	// +required
	Amount resource.Quantity `json:"amount"`

	// currency of the amount, an ISO 4217 code such as "EUR".
	// +required
	// +kubebuilder:validation:MaxLength=3
	// +kubebuilder:validation:Pattern=`^[A-Z]{3}$`
	Currency string `json:"currency"`

	// period the amount pays for.
	// +optional
	// +kubebuilder:default=Hour
	Period PricePeriod `json:"period,omitempty"`
}

// The summary condition of every message of the protocol (Advertisement,
// Offer, Quote, Acknowledgement, Release, Reservation, CapacityQuery).
const (
	// ConditionReady is True when the message had the outcome it asks
	// for, with the reason and message of the condition that holds it
	// (Accepted and not Expired, Selected, Answered, Released, Held;
	// an Acknowledgement's decision); False with the reason and message
	// of the condition that says why not; Unknown before any outcome.
	ConditionReady = "Ready"
	// ReasonNotAnswered is Ready's reason while no outcome is written.
	ReasonNotAnswered = "NotAnswered"
)

// SourceKind is the kind of message a Reservation or a Release refers to.
// +kubebuilder:validation:Enum=Advertisement;Offer
type SourceKind string

// The kinds of message capacity is reserved for.
const (
	SourceAdvertisement SourceKind = "Advertisement"
	SourceOffer         SourceKind = "Offer"
)

// SourceReference names the Advertisement or Offer capacity was promised
// in, as it is named in the consumer's cluster.
type SourceReference struct {
	// kind of the message.
	// +required
	Kind SourceKind `json:"kind"`

	// name of the message.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}
