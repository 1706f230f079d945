package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OfferTerms are a provider's interest in hosting something and its price.
//
// +kubebuilder:validation:XValidation:rule="self.interest == 0 || has(self.price)",message="price is required when interest is greater than zero",fieldPath=".price"
type OfferTerms struct {
	// interest from 0 (cannot host it) to 100 (eager to).
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Interest int32 `json:"interest"`

	// price of hosting it, all replicas, per period.
	// +optional
	Price *Money `json:"price,omitempty"`
}

// OfferItem is the terms for one component of the quote.
type OfferItem struct {
	// component of the quote the terms are for.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Component string `json:"component"`

	OfferTerms `json:",inline"`
}

// OfferSpec is a provider's answer to a Quote (seed 002, 4.2.6).
//
// +kubebuilder:validation:XValidation:rule="self.expiresAt > self.timestamp",message="expiresAt must be after timestamp",fieldPath=".expiresAt"
// +kubebuilder:validation:XValidation:rule="has(self.whole) || (has(self.items) && size(self.items) > 0)",message="an offer needs whole or at least one item",fieldPath=".items"
type OfferSpec struct {
	// provider making the offer.
	// +required
	Provider ClusterID `json:"provider"`

	// quote is the name of the Quote answered, as the provider holds it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Quote string `json:"quote"`

	// appID of the quote.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	AppID string `json:"appID"`

	// whole is the terms for hosting every component of the quote (the
	// seed's "app" entry).
	// +optional
	Whole *OfferTerms `json:"whole,omitempty"`

	// items are the terms per component.
	// +optional
	// +listType=map
	// +listMapKey=component
	// +kubebuilder:validation:MaxItems=64
	Items []OfferItem `json:"items,omitempty"`

	// timestamp is when the offer was made.
	// +required
	Timestamp metav1.Time `json:"timestamp"`

	// expiresAt is when the offer lapses unless acknowledged; until then
	// the provider holds the capacity for it.
	// +required
	ExpiresAt metav1.Time `json:"expiresAt"`
}

// OfferStatus is written by the consumer.
type OfferStatus struct {
	// conditions of the object: Selected.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Offer condition types.
const (
	// OfferSelected is True for the offer the consumer's auction picked,
	// False with the reason for the others.
	OfferSelected = "Selected"

	OfferReasonCheapest   = "CheapestFit"
	OfferReasonOutbid     = "Outbid"
	OfferReasonDoesNotFit = "DoesNotFit"
	OfferReasonExpired    = "Expired"
	OfferReasonLate       = "ArrivedAfterDeadline"
)

// Offer is a provider's interest and price for hosting the components of a
// Quote, valid until it expires; the provider writes it into the consumer.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=meridian;sharing
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="App",type=string,JSONPath=`.spec.appID`
// +kubebuilder:printcolumn:name="Interest",type=integer,JSONPath=`.spec.whole.interest`
// +kubebuilder:printcolumn:name="Price",type=string,JSONPath=`.spec.whole.price.amount`
// +kubebuilder:printcolumn:name="Currency",type=string,JSONPath=`.spec.whole.price.currency`
// +kubebuilder:printcolumn:name="Expires",type=date,JSONPath=`.spec.expiresAt`
// +kubebuilder:printcolumn:name="Selected",type=string,JSONPath=`.status.conditions[?(@.type=="Selected")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Offer struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is written by the provider.
	// +required
	Spec OfferSpec `json:"spec"`

	// status is written by the consumer.
	// +optional
	Status OfferStatus `json:"status,omitempty"`
}

// OfferList is a list of Offers.
//
// +kubebuilder:object:root=true
type OfferList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Offer `json:"items"`
}
