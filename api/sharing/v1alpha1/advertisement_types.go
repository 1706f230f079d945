package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AdvertisementType says what an Advertisement carries.
// +kubebuilder:validation:Enum=Full;Partial
type AdvertisementType string

// The types of Advertisement (seed 002, 4.2.1).
const (
	// AdvertisementFull carries everything: availability, prices, images
	// and network; sent every 30 minutes.
	AdvertisementFull AdvertisementType = "Full"
	// AdvertisementPartial carries only availability and is the peer's
	// hello; sent every 10 minutes. Prices and images are the last full
	// advertisement's.
	AdvertisementPartial AdvertisementType = "Partial"
)

// AdvertisementDecision is the receiver's answer to an Advertisement.
// +kubebuilder:validation:Enum=Pending;Accepted;Refused
type AdvertisementDecision string

// The receiver's decisions.
const (
	DecisionPending  AdvertisementDecision = "Pending"
	DecisionAccepted AdvertisementDecision = "Accepted"
	DecisionRefused  AdvertisementDecision = "Refused"
)

// Advertisement condition types and the reason only a condition gives.
const (
	// AdvertisementAccepted is True when the incoming policy accepted the
	// advertisement. Its reason is PolicyAccepted or PolicyRefused, or the
	// status.reason of a refusal before any policy (UnknownPeer, Invalid,
	// TimeToLivePassed); its message has status.reason and
	// status.message.
	AdvertisementAccepted = "Accepted"
	// AdvertisementExpired is True once the time-to-live passed without a
	// renewal; the virtual nodes are cordoned and drained.
	AdvertisementExpired = "Expired"

	// AdvertisementConditionReasonRenewed is Expired's reason while the
	// advertisement holds.
	AdvertisementConditionReasonRenewed = "Renewed"
)

// AdvertisementReason says in one CamelCase word why the receiver decided
// as it did (status.reason): a refusal before any policy, the broker's
// listing, or the incoming policy's reason. A policy's reason outside this
// list is recorded as PolicyAccepted or PolicyRefused, with the policy's
// word at the start of status.message.
// +kubebuilder:validation:Enum=PolicyAccepted;PolicyRefused;UntrustedPeer;CurrencyNotAccepted;PriceAboveCeiling;NoShapeLargeEnough;Listed;UnknownPeer;ClusterIDMismatch;WrongConsumer;Invalid;TimeToLivePassed;NoFullAdvertisement
type AdvertisementReason string

// The reasons of a receiver's decision.
const (
	// AdvertisementReasonPolicyAccepted: the incoming policy accepted it.
	AdvertisementReasonPolicyAccepted AdvertisementReason = "PolicyAccepted"
	// AdvertisementReasonPolicyRefused: the incoming policy refused it for
	// a reason of its own, which starts the message.
	AdvertisementReasonPolicyRefused AdvertisementReason = "PolicyRefused"
	// AdvertisementReasonUntrustedPeer: the provider is not among the
	// policy's trusted peers.
	AdvertisementReasonUntrustedPeer AdvertisementReason = "UntrustedPeer"
	// AdvertisementReasonCurrencyNotAccepted: the policy has no price
	// ceiling in the prices' currency.
	AdvertisementReasonCurrencyNotAccepted AdvertisementReason = "CurrencyNotAccepted"
	// AdvertisementReasonPriceAboveCeiling: a price is above the policy's
	// ceiling.
	AdvertisementReasonPriceAboveCeiling AdvertisementReason = "PriceAboveCeiling"
	// AdvertisementReasonNoShapeLargeEnough: no node shape is as large as
	// the policy's minimum.
	AdvertisementReasonNoShapeLargeEnough AdvertisementReason = "NoShapeLargeEnough"
	// AdvertisementReasonListed: a broker lists it in its table.
	AdvertisementReasonListed AdvertisementReason = "Listed"
	// AdvertisementReasonUnknownPeer: no enabled Peer maps to the
	// namespace that holds it.
	AdvertisementReasonUnknownPeer AdvertisementReason = "UnknownPeer"
	// AdvertisementReasonClusterIDMismatch: it claims another cluster ID
	// than that of the Peer that wrote it.
	AdvertisementReasonClusterIDMismatch AdvertisementReason = "ClusterIDMismatch"
	// AdvertisementReasonWrongConsumer: it is made for another receiver.
	AdvertisementReasonWrongConsumer AdvertisementReason = "WrongConsumer"
	// AdvertisementReasonInvalid: it breaks a rule the schema cannot
	// check; the message names the field.
	AdvertisementReasonInvalid AdvertisementReason = "Invalid"
	// AdvertisementReasonTimeToLive: its time-to-live passed.
	AdvertisementReasonTimeToLive AdvertisementReason = "TimeToLivePassed"
	// AdvertisementReasonNoFullAdvertisement: a Partial one came before
	// any Full one, so its prices are unknown.
	AdvertisementReasonNoFullAdvertisement AdvertisementReason = "NoFullAdvertisement"
)

// AdvertisedImage is a container image already present on the provider's
// nodes, as a Node's status lists it.
type AdvertisedImage struct {
	// names the image is known by.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=512
	Names []string `json:"names"`

	// sizeBytes of the image.
	// +optional
	// +kubebuilder:validation:Minimum=0
	SizeBytes int64 `json:"sizeBytes,omitempty"`
}

// NetworkInfo is what a consumer needs to reach the provider's pods.
type NetworkInfo struct {
	// podCIDR is the provider's pod address range.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PodCIDR string `json:"podCIDR,omitempty"`

	// gatewayIP is the address of the provider's gateway.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	GatewayIP string `json:"gatewayIP,omitempty"`

	// supportedProtocols of the gateway.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=32
	SupportedProtocols []string `json:"supportedProtocols,omitempty"`
}

// AdvertisementSpec is what a provider can spare for one consumer.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'Partial' || (!has(self.prices) && !has(self.images) && !has(self.network))",message="a Partial advertisement carries only availability; prices, images and network come with the Full one",fieldPath=".type"
// +kubebuilder:validation:XValidation:rule="duration(self.timeToLive) > duration('0s') && duration(self.timeToLive) <= duration('24h')",message="timeToLive must be greater than zero and at most 24h, e.g. 30m",fieldPath=".timeToLive"
type AdvertisementSpec struct {
	// clusterID of the provider as it names itself. The receiver records
	// the provider by the identity that wrote the advertisement (the Peer
	// whose namespace holds it) and refuses an advertisement whose
	// clusterID is not that Peer's.
	// +required
	ClusterID ClusterID `json:"clusterID"`

	// consumer is the cluster this advertisement is for. An advertisement
	// is made for one consumer and never sent to another, so the same
	// capacity is never promised twice.
	// +required
	Consumer ClusterID `json:"consumer"`

	// type is Full (everything) or Partial (availability only, the hello).
	// +optional
	// +kubebuilder:default=Full
	Type AdvertisementType `json:"type,omitempty"`

	// region of the provider.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Region string `json:"region,omitempty"`

	// zone of the provider.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Zone string `json:"zone,omitempty"`

	// availability is the spare capacity per node shape. Empty means the
	// provider has nothing to spare now (a hello).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=256
	Availability []NodeShape `json:"availability,omitempty"`

	// prices per resource, all in one currency. Empty in a Full
	// advertisement means free sharing.
	// +optional
	// +listType=map
	// +listMapKey=resource
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(p, p.currency == self[0].currency)",message="all prices must be in one currency"
	Prices []Price `json:"prices,omitempty"`

	// images already present on the provider's nodes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	Images []AdvertisedImage `json:"images,omitempty"`

	// network information about the provider.
	// +optional
	Network *NetworkInfo `json:"network,omitempty"`

	// flags are the seed's extension flags, "name" or "name=value" (for
	// example "aggregatable=false"); a receiver ignores flags it does not
	// know.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^[a-zA-Z][a-zA-Z0-9.-]*(=[^\s]*)?$`
	Flags []string `json:"flags,omitempty"`

	// timestamp is when the provider made the advertisement.
	// +required
	Timestamp metav1.Time `json:"timestamp"`

	// timeToLive is how long after timestamp the advertisement holds; one
	// not renewed by then expires and its virtual nodes are drained.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	TimeToLive metav1.Duration `json:"timeToLive"`
}

// AdvertisementStatus is written by the receiving cluster, for the
// provider to read.
type AdvertisementStatus struct {
	// conditions of the object: Accepted and Expired.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// decision of the receiver's incoming policy.
	// +optional
	Decision AdvertisementDecision `json:"decision,omitempty"`

	// reason says in one CamelCase word why the receiver decided as it
	// did, such as "PriceAboveCeiling" or "UntrustedPeer".
	// +optional
	Reason AdvertisementReason `json:"reason,omitempty"`

	// message explains the decision to a person.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Message string `json:"message,omitempty"`

	// acceptedShapes names the shapes the receiver accepted, when it
	// accepted only some; empty with an Accepted decision means all.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	AcceptedShapes []string `json:"acceptedShapes,omitempty"`

	// virtualNodes is how many virtual nodes the receiver made from it.
	// +optional
	VirtualNodes int32 `json:"virtualNodes,omitempty"`

	// expiresAt is timestamp plus timeToLive as the receiver computed it.
	// +optional
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`

	// observedGeneration is the generation the decision was made for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// Advertisement is the capacity a provider can spare for one consumer, per
// node shape, with its prices; the provider writes it into the consumer.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=adv,categories=meridian;sharing
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.clusterID`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Decision",type=string,JSONPath=`.status.decision`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.reason`
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.status.virtualNodes`,description="Virtual nodes made from it"
// +kubebuilder:printcolumn:name="TTL",type=string,JSONPath=`.spec.timeToLive`
// +kubebuilder:printcolumn:name="Expires",type=date,JSONPath=`.status.expiresAt`,priority=1
// +kubebuilder:printcolumn:name="Consumer",type=string,JSONPath=`.spec.consumer`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Advertisement struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is written by the provider.
	// +required
	Spec AdvertisementSpec `json:"spec"`

	// status is written by the receiver.
	// +optional
	Status AdvertisementStatus `json:"status,omitempty"`
}

// AdvertisementList is a list of Advertisements.
//
// +kubebuilder:object:root=true
type AdvertisementList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Advertisement `json:"items"`
}
