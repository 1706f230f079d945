package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AcknowledgementDecision is the provider's answer to an acknowledgement.
// +kubebuilder:validation:Enum=Confirmed;Refused
type AcknowledgementDecision string

// The provider's answers.
const (
	// AckConfirmed: the provider reserved the capacity (status.reservation).
	AckConfirmed AcknowledgementDecision = "Confirmed"
	// AckRefused: the provider cannot host it any more (the offer expired
	// or the capacity is gone); the reason says which.
	AckRefused AcknowledgementDecision = "Refused"
)

// AcknowledgementReason says in one CamelCase word why the provider
// answered as it did (status.reason).
// +kubebuilder:validation:Enum=Reserved;Declined;NoOffer;OfferExpired;CapacityGone;ConsumerMismatch
type AcknowledgementReason string

// The reasons of the provider's answers.
const (
	// AcknowledgementReasonReserved: the capacity is reserved
	// (status.reservation); the decision is Confirmed.
	AcknowledgementReasonReserved AcknowledgementReason = "Reserved"
	// AcknowledgementReasonDeclined: the consumer declined the offer and
	// the provider freed what it held for it.
	AcknowledgementReasonDeclined AcknowledgementReason = "Declined"
	// AcknowledgementReasonNoOffer: the provider holds no offer of that
	// name for the consumer.
	AcknowledgementReasonNoOffer AcknowledgementReason = "NoOffer"
	// AcknowledgementReasonOfferExpired: the offer expired before it was
	// acknowledged.
	AcknowledgementReasonOfferExpired AcknowledgementReason = "OfferExpired"
	// AcknowledgementReasonCapacityGone: the capacity the offer held is no
	// longer free.
	AcknowledgementReasonCapacityGone AcknowledgementReason = "CapacityGone"
	// AcknowledgementReasonConsumerMismatch: spec.consumer is not the
	// cluster that wrote the acknowledgement.
	AcknowledgementReasonConsumerMismatch AcknowledgementReason = "ConsumerMismatch"
)

// AcknowledgementSpec is the consumer's answer to an Offer (seed 002,
// 4.2.4): take it, or decline it so the provider frees it before expiry.
type AcknowledgementSpec struct {
	// consumer acknowledging.
	// +required
	Consumer ClusterID `json:"consumer"`

	// offer is the name of the Offer, as the consumer holds it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Offer string `json:"offer"`

	// quote is the name of the Quote the offer answered, as the provider
	// holds it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Quote string `json:"quote"`

	// appID of the quote.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	AppID string `json:"appID"`

	// confirm takes the offer when true and declines it when false.
	// +required
	Confirm bool `json:"confirm"`
}

// AcknowledgementStatus is written by the provider.
type AcknowledgementStatus struct {
	// conditions of the object.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// decision of the provider.
	// +optional
	Decision AcknowledgementDecision `json:"decision,omitempty"`

	// reason says in one CamelCase word why the provider answered as it
	// did.
	// +optional
	Reason AcknowledgementReason `json:"reason,omitempty"`

	// reservation names the provider's Reservation when confirmed.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Reservation string `json:"reservation,omitempty"`
}

// Acknowledgement takes or declines an Offer; the consumer writes it into
// the provider, which answers in its status.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ack,categories=meridian;sharing
// +kubebuilder:printcolumn:name="Consumer",type=string,JSONPath=`.spec.consumer`
// +kubebuilder:printcolumn:name="Offer",type=string,JSONPath=`.spec.offer`
// +kubebuilder:printcolumn:name="Confirm",type=boolean,JSONPath=`.spec.confirm`
// +kubebuilder:printcolumn:name="Decision",type=string,JSONPath=`.status.decision`
// +kubebuilder:printcolumn:name="Reservation",type=string,JSONPath=`.status.reservation`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Acknowledgement struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is written by the consumer.
	// +required
	Spec AcknowledgementSpec `json:"spec"`

	// status is written by the provider.
	// +optional
	Status AcknowledgementStatus `json:"status,omitempty"`
}

// AcknowledgementList is a list of Acknowledgements.
//
// +kubebuilder:object:root=true
type AcknowledgementList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Acknowledgement `json:"items"`
}
