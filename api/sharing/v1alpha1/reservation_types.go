package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReservationState says how firmly capacity is held.
// +kubebuilder:validation:Enum=Offered;Reserved
type ReservationState string

// The states of a Reservation.
const (
	// ReservationOffered: the capacity was advertised or offered to the
	// consumer, which has not accepted it yet. It is not advertised to
	// anyone else until it expires.
	ReservationOffered ReservationState = "Offered"
	// ReservationReserved: the consumer accepted it; it is held until the
	// consumer releases it or it expires without renewal.
	ReservationReserved ReservationState = "Reserved"
)

// Reservation condition types and reasons.
const (
	// ReservationHeld is True while every slice still fits its node.
	ReservationHeld = "Held"

	ReservationReasonFits       = "Fits"
	ReservationReasonOvercommit = "NodeOvercommitted"
	ReservationReasonNodeGone   = "NodeGone"
)

// NodeSlice is a part of one provider node's spare capacity.
type NodeSlice struct {
	// node is the provider node's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node"`

	// shape is the advertised shape the slice backs.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Shape string `json:"shape"`

	// resources held on the node.
	// +required
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=16
	Resources map[corev1.ResourceName]resource.Quantity `json:"resources"`
}

// ReservationSpec is capacity a provider holds for one consumer.
type ReservationSpec struct {
	// consumer the capacity is held for.
	// +required
	Consumer ClusterID `json:"consumer"`

	// source is the Advertisement or Offer the capacity was promised in.
	// +required
	Source SourceReference `json:"source"`

	// state is Offered until the consumer accepts, then Reserved.
	// +required
	State ReservationState `json:"state"`

	// slices are the node slices held, at most one per node.
	// +optional
	// +listType=map
	// +listMapKey=node
	// +kubebuilder:validation:MaxItems=10000
	Slices []NodeSlice `json:"slices,omitempty"`

	// expiresAt is when the hold lapses unless renewed: the
	// advertisement's timestamp plus time-to-live, or the offer's expiry.
	// +required
	ExpiresAt metav1.Time `json:"expiresAt"`
}

// ReservationStatus is what the provider's agent observed of its hold.
type ReservationStatus struct {
	// conditions of the object: Held says whether every slice still fits its node.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// total sums the slices.
	// +optional
	Total corev1.ResourceList `json:"total,omitempty"`

	// observedGeneration is the generation last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// Reservation is capacity a provider holds for one consumer, for an
// advertisement or an offer it made to it. It lives in the provider.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=rsv,categories=meridian;sharing
// +kubebuilder:printcolumn:name="Consumer",type=string,JSONPath=`.spec.consumer`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.spec.state`
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=`.spec.source.kind`
// +kubebuilder:printcolumn:name="CPU",type=string,JSONPath=`.status.total.cpu`
// +kubebuilder:printcolumn:name="Memory",type=string,JSONPath=`.status.total.memory`
// +kubebuilder:printcolumn:name="Expires",type=date,JSONPath=`.spec.expiresAt`
// +kubebuilder:printcolumn:name="Held",type=string,JSONPath=`.status.conditions[?(@.type=="Held")].status`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Reservation struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the hold.
	// +required
	Spec ReservationSpec `json:"spec"`

	// status is what the agent observed of it.
	// +optional
	Status ReservationStatus `json:"status,omitempty"`
}

// ReservationList is a list of Reservations.
//
// +kubebuilder:object:root=true
type ReservationList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Reservation `json:"items"`
}
