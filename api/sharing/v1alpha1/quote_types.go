package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Quote condition types.
const (
	// QuoteAnswered is True once the provider wrote its Offer (or decided
	// not to offer; the reason says which).
	QuoteAnswered = "Answered"

	QuoteReasonOffered      = "Offered"
	QuoteReasonNoCapacity   = "NoCapacity"
	QuoteReasonDeadlinePast = "DeadlinePassed"
)

// Component is one part of an application in a Quote: identical replicas
// that each need requests on one node.
//
// The agent checks that the requests are not negative (sharing.Validate).
//
// +kubebuilder:validation:XValidation:rule="'cpu' in self.requests || 'memory' in self.requests",message="requests must ask for cpu or memory greater than zero",fieldPath=".requests"
type Component struct {
	// name of the component within the application.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// replicas of the component.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	Replicas int32 `json:"replicas,omitempty"`

	// requests of one replica, as its pod asks (the sum over containers).
	// +required
	// +kubebuilder:validation:MaxProperties=16
	Requests map[corev1.ResourceName]resource.Quantity `json:"requests"`

	// nodeSelector the replicas' pods carry (kubernetes.io/arch and the
	// like); a provider offers only nodes that match it.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
}

// QuoteSpec asks providers for offers to host an application's
// components (seed 002, 4.2.5).
//
// +kubebuilder:validation:XValidation:rule="self.deadline > self.timestamp",message="deadline must be after timestamp",fieldPath=".deadline"
type QuoteSpec struct {
	// consumer is the cluster asking (the seed's home cluster).
	// +required
	Consumer ClusterID `json:"consumer"`

	// appID identifies the application the components belong to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	AppID string `json:"appID"`

	// components to host.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Components []Component `json:"components"`

	// currency the consumer wants prices in, an ISO 4217 code.
	// +optional
	// +kubebuilder:validation:MaxLength=3
	// +kubebuilder:validation:Pattern=`^[A-Z]{3}$`
	Currency string `json:"currency,omitempty"`

	// timestamp is when the quote was made.
	// +required
	Timestamp metav1.Time `json:"timestamp"`

	// deadline is when the consumer stops collecting offers; an offer
	// that arrives later is not considered.
	// +required
	Deadline metav1.Time `json:"deadline"`
}

// QuoteStatus is written by the provider the quote was sent to.
type QuoteStatus struct {
	// conditions of the object: Answered.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// offer names the Offer the provider wrote into the consumer; for a
	// closed auction, the winning Offer as "<namespace>/<name>".
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Offer string `json:"offer,omitempty"`

	// provider that won the auction, once it closed with a winner.
	// +optional
	Provider ClusterID `json:"provider,omitempty"`

	// price of the winning offer for every component, per hour.
	// +optional
	Price *Money `json:"price,omitempty"`
}

// Quote asks a provider for an offer to host an application's components
// before a deadline; the consumer writes it into the provider.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=meridian;sharing
// +kubebuilder:printcolumn:name="Consumer",type=string,JSONPath=`.spec.consumer`
// +kubebuilder:printcolumn:name="App",type=string,JSONPath=`.spec.appID`
// +kubebuilder:printcolumn:name="Deadline",type=date,JSONPath=`.spec.deadline`
// +kubebuilder:printcolumn:name="Answered",type=string,JSONPath=`.status.conditions[?(@.type=="Answered")].status`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.status.provider`
// +kubebuilder:printcolumn:name="Price",type=string,JSONPath=`.status.price.amount`,priority=1
// +kubebuilder:printcolumn:name="Offer",type=string,JSONPath=`.status.offer`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Quote struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is written by the consumer.
	// +required
	Spec QuoteSpec `json:"spec"`

	// status is written by the provider.
	// +optional
	Status QuoteStatus `json:"status,omitempty"`
}

// QuoteList is a list of Quotes.
//
// +kubebuilder:object:root=true
type QuoteList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Quote `json:"items"`
}
