package v1alpha1

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MultiClusterDeploymentSpec is a Deployment's spec plus a placement block.
type MultiClusterDeploymentSpec struct {
	// replicas is the number of pods wanted over all clusters.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// selector matches the pods of the workload; it must match the
	// template's labels.
	// +required
	Selector *metav1.LabelSelector `json:"selector"`

	// template is the pod template, as in a Deployment.
	// +required
	Template corev1.PodTemplateSpec `json:"template"`

	// strategy replaces old pods with new ones in each member Deployment.
	// +optional
	Strategy appsv1.DeploymentStrategy `json:"strategy,omitempty"`

	// minReady is how long a new pod must be ready before it counts as
	// available: whole seconds written with h, m and s, such as "30s" or
	// "1m30s", as each member Deployment's minReadySeconds counts them.
	// Unset is 0s.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(h|m|s))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self).getSeconds() <= 2147483647",message="minReady must be at most 2147483647s, the largest minReadySeconds of a Deployment"
	MinReady *metav1.Duration `json:"minReady,omitempty"`

	// placement says where the replicas may go.
	// +optional
	Placement Placement `json:"placement,omitempty"`
}

// MultiClusterDeploymentStatus is the decision and what was observed of it.
type MultiClusterDeploymentStatus struct {
	// conditions of the object: Ready (the summary), Placed, Propagated,
	// Available, ReplicasPending.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec last placed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// replicas placed over all clusters.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// readyReplicas over all clusters.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// availableReplicas over all clusters.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// unplacedReplicas fit no cluster at the last decision.
	// +optional
	UnplacedReplicas int32 `json:"unplacedReplicas,omitempty"`

	// selector is spec.selector in string form, for the scale subresource.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Selector string `json:"selector,omitempty"`

	// summary lists the clusters and their replicas, for example
	// "nantes=3,rennes=2".
	// +optional
	// +kubebuilder:validation:MaxLength=65536
	Summary string `json:"summary,omitempty"`

	// lastDecisionTime is when the placement last changed.
	// +optional
	LastDecisionTime *metav1.Time `json:"lastDecisionTime,omitempty"`

	// clusters holds the decision for every cluster considered: the
	// replicas placed and why, or why none.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Clusters []ClusterDecision `json:"clusters,omitempty"`
}

// MultiClusterDeployment is a Deployment whose replicas Meridian places
// across member clusters by policy.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=mcd,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.spec.placement.policy`
// +kubebuilder:printcolumn:name="Clusters",type=string,JSONPath=`.status.summary`
// +kubebuilder:printcolumn:name="Placed",type=string,JSONPath=`.status.conditions[?(@.type=="Placed")].status`
// +kubebuilder:printcolumn:name="Unplaced",type=integer,JSONPath=`.status.unplacedReplicas`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MultiClusterDeployment struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the wanted workload and its placement.
	// +required
	Spec MultiClusterDeploymentSpec `json:"spec"`

	// status is the placement decision and what was observed of it.
	// +optional
	Status MultiClusterDeploymentStatus `json:"status,omitempty"`
}

// MultiClusterDeploymentList is a list of MultiClusterDeployments.
//
// +kubebuilder:object:root=true
type MultiClusterDeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MultiClusterDeployment `json:"items"`
}
