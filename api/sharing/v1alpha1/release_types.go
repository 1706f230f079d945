package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Release condition types.
const (
	// ReleaseDone is True once the provider freed the capacity and deleted
	// the twins of the released pods.
	ReleaseDone = "Released"

	ReleaseReasonFreed    = "Freed"
	ReleaseReasonNotFound = "NothingHeld"
)

// ReleaseSpec frees capacity the consumer no longer needs (seed 002,
// 4.1.2).
type ReleaseSpec struct {
	// consumer releasing.
	// +required
	Consumer ClusterID `json:"consumer"`

	// source is the Advertisement or Offer whose capacity is released.
	// +required
	Source SourceReference `json:"source"`

	// appID of the released application, for offers.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	AppID string `json:"appID,omitempty"`

	// reason the consumer gives, for the provider's records.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason,omitempty"`
}

// ReleaseStatus is written by the provider.
type ReleaseStatus struct {
	// conditions of the object: Released.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// releasedTime is when the provider freed the capacity.
	// +optional
	ReleasedTime *metav1.Time `json:"releasedTime,omitempty"`
}

// Release frees the capacity held for an accepted Advertisement or Offer;
// the consumer writes it into the provider.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=meridian;sharing
// +kubebuilder:printcolumn:name="Consumer",type=string,JSONPath=`.spec.consumer`
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.source.kind`
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=`.spec.source.name`
// +kubebuilder:printcolumn:name="Released",type=string,JSONPath=`.status.conditions[?(@.type=="Released")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Release struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is written by the consumer.
	// +required
	Spec ReleaseSpec `json:"spec"`

	// status is written by the provider.
	// +optional
	Status ReleaseStatus `json:"status,omitempty"`
}

// ReleaseList is a list of Releases.
//
// +kubebuilder:object:root=true
type ReleaseList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Release `json:"items"`
}
