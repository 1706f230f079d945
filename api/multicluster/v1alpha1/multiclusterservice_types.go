package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MultiClusterServiceSpec is a Service's spec; the clusters it is created in
// follow the MultiClusterDeployment its selector matches.
type MultiClusterServiceSpec struct {
	// selector matches the pods the Service routes to, as in a Service; the
	// MultiClusterDeployment whose template labels it matches decides the
	// clusters.
	// +required
	// +kubebuilder:validation:MinProperties=1
	Selector map[string]string `json:"selector"`

	// ports the Service exposes.
	// +required
	// +listType=map
	// +listMapKey=port
	// +listMapKey=protocol
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Ports []corev1.ServicePort `json:"ports"`

	// type of the member Services.
	// +optional
	// +kubebuilder:default=ClusterIP
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	Type corev1.ServiceType `json:"type,omitempty"`

	// export also creates a ServiceExport (Multi-Cluster Services API) in
	// each member, so a cluster mesh such as Cilium or Submariner routes
	// across clusters.
	// +optional
	// +kubebuilder:default=true
	Export *bool `json:"export,omitempty"`
}

// MultiClusterServiceStatus says where the Service exists.
type MultiClusterServiceStatus struct {
	// conditions of the object: Ready when the member Services match the deployment's
	// clusters.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// deployment is the name of the MultiClusterDeployment the selector
	// matched.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Deployment string `json:"deployment,omitempty"`

	// clusters the Service exists in.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	Clusters []ClusterName `json:"clusters,omitempty"`
}

// MultiClusterService is a Service that Meridian creates in exactly the
// clusters that host the matching MultiClusterDeployment.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=mcsvc,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Deployment",type=string,JSONPath=`.status.deployment`
// +kubebuilder:printcolumn:name="Clusters",type=string,JSONPath=`.status.clusters`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MultiClusterService struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the wanted Service.
	// +required
	Spec MultiClusterServiceSpec `json:"spec"`

	// status says where the Service exists.
	// +optional
	Status MultiClusterServiceStatus `json:"status,omitempty"`
}

// MultiClusterServiceList is a list of MultiClusterServices.
//
// +kubebuilder:object:root=true
type MultiClusterServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MultiClusterService `json:"items"`
}

// MultiClusterService condition type and reasons.
const (
	// ConditionServiceReady is True when the Service and its export exist
	// in every member that runs the deployment it follows.
	ConditionServiceReady = "Ready"
	// ReasonFollowingDeployment means the Service follows its deployment.
	ReasonFollowingDeployment = "FollowingDeployment"
	// ReasonNoMatchingDeployment means no MultiClusterDeployment selects
	// the Service's pods.
	ReasonNoMatchingDeployment = "NoMatchingDeployment"
	// ReasonMembersMissing means some members lack the Service.
	ReasonMembersMissing = "MembersMissing"
)
