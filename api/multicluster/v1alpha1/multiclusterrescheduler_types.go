package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MultiClusterReschedulerSpec says how often to look for replicas to bring
// home.
type MultiClusterReschedulerSpec struct {
	// interval between two passes.
	// +optional
	// +kubebuilder:default="1m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	Interval *metav1.Duration `json:"interval,omitempty"`

	// suspend stops the passes without deleting the object.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// MultiClusterReschedulerStatus is what the passes did.
type MultiClusterReschedulerStatus struct {
	// conditions of the rescheduler.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// lastRunTime is when the last pass ran.
	// +optional
	LastRunTime *metav1.Time `json:"lastRunTime,omitempty"`

	// replicasMovedBack counts the replicas brought back to their preferred
	// clusters since the object was created.
	// +optional
	ReplicasMovedBack int64 `json:"replicasMovedBack,omitempty"`
}

// MultiClusterRescheduler periodically moves replicas that run on cloud or
// substitute clusters only because their preferred clusters were full back
// to those clusters once they have room. Replicas in a cloud cluster whose
// predictive CloudProvisioner reports status.demandTrend Settled also move
// to any member cluster their placement allows that has room, so that the
// cloud's nodes empty and are removed.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=mcr,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Interval",type=string,JSONPath=`.spec.interval`
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Moved Back",type=integer,JSONPath=`.status.replicasMovedBack`
// +kubebuilder:printcolumn:name="Last Run",type=date,JSONPath=`.status.lastRunTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MultiClusterRescheduler struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the interval.
	// +optional
	Spec MultiClusterReschedulerSpec `json:"spec,omitempty"`

	// status is what the passes did.
	// +optional
	Status MultiClusterReschedulerStatus `json:"status,omitempty"`
}

// MultiClusterReschedulerList is a list of MultiClusterReschedulers.
//
// +kubebuilder:object:root=true
type MultiClusterReschedulerList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MultiClusterRescheduler `json:"items"`
}
