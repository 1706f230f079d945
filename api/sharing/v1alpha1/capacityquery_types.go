package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CapacityQuery condition types and reasons.
const (
	// CapacityQueryAnswered is True once the broker wrote the matches
	// into status (none is an answer too), False when the query is
	// invalid; the message names the field.
	CapacityQueryAnswered = "Answered"

	CapacityQueryReasonMatched   = "Matched"
	CapacityQueryReasonNoMatch   = "NoMatch"
	CapacityQueryReasonInvalid   = "Invalid"
	CapacityQueryReasonNotMember = "NotRegistered"
)

// CapacityQuerySpec asks a broker which advertised node shapes can run one
// pod, in a region and under a price.
//
// +kubebuilder:validation:XValidation:rule="'cpu' in self.requests || 'memory' in self.requests",message="requests must ask for cpu or memory greater than zero",fieldPath=".requests"
type CapacityQuerySpec struct {
	// requests of one pod (the sum over its containers): a shape matches
	// only when one of its nodes can run the whole pod.
	// +required
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=16
	Requests map[corev1.ResourceName]resource.Quantity `json:"requests"`

	// nodeSelector the pod carries; a shape matches only when its labels
	// have every entry.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// region the provider must be in; empty matches every region.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Region string `json:"region,omitempty"`

	// maxPrice is the most the pod may cost per period, in one currency;
	// advertisements in another currency do not match. Empty matches
	// every price.
	// +optional
	MaxPrice *Money `json:"maxPrice,omitempty"`

	// limit is the most matches returned, cheapest first.
	// +optional
	// +kubebuilder:default=20
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Limit int32 `json:"limit,omitempty"`
}

// CapacityMatch is one advertised node shape that can run the pod.
type CapacityMatch struct {
	// provider advertising the shape.
	// +required
	Provider ClusterID `json:"provider"`

	// region of the provider.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Region string `json:"region,omitempty"`

	// advertisement the shape is in, "<namespace>/<name>" in the broker.
	// +required
	// +kubebuilder:validation:MaxLength=317
	Advertisement string `json:"advertisement"`

	// shape is the name of the matching node shape.
	// +required
	// +kubebuilder:validation:MaxLength=63
	Shape string `json:"shape"`

	// nodes of the shape the provider advertises.
	// +required
	Nodes int32 `json:"nodes"`

	// podsPerNode is how many such pods one node of the shape can run.
	// +required
	PodsPerNode int64 `json:"podsPerNode"`

	// price of the pod per hour, from the advertisement's prices; absent
	// when sharing is free.
	// +optional
	Price *Money `json:"price,omitempty"`

	// expiresAt is when the advertisement expires unless renewed.
	// +required
	ExpiresAt metav1.Time `json:"expiresAt"`
}

// CapacityQueryStatus is written by the broker.
type CapacityQueryStatus struct {
	// conditions of the object: Answered.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// matches are the shapes that can run the pod, cheapest first, then
	// by provider and shape.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Matches []CapacityMatch `json:"matches,omitempty"`

	// answeredAt is when the broker answered; the table may have changed
	// since.
	// +optional
	AnsweredAt *metav1.Time `json:"answeredAt,omitempty"`

	// observedGeneration is the generation answered.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// CapacityQuery asks a broker (meridian broker) which advertised node shapes
// can run a pod, in a region and under a price. A consumer writes it into
// its namespace in the broker; the broker answers in status from its
// advertisement table.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cq,categories=meridian;sharing
// +kubebuilder:printcolumn:name="CPU",type=string,JSONPath=`.spec.requests.cpu`
// +kubebuilder:printcolumn:name="Memory",type=string,JSONPath=`.spec.requests.memory`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Max Price",type=string,JSONPath=`.spec.maxPrice.amount`
// +kubebuilder:printcolumn:name="Answered",type=string,JSONPath=`.status.conditions[?(@.type=="Answered")].reason`
// +kubebuilder:printcolumn:name="Best",type=string,JSONPath=`.status.matches[0].provider`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CapacityQuery struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is written by the consumer.
	// +required
	Spec CapacityQuerySpec `json:"spec"`

	// status is written by the broker.
	// +optional
	Status CapacityQueryStatus `json:"status,omitempty"`
}

// CapacityQueryList is a list of CapacityQueries.
//
// +kubebuilder:object:root=true
type CapacityQueryList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CapacityQuery `json:"items"`
}
