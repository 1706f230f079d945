package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of this API.
var GroupVersion = schema.GroupVersion{Group: "multicluster.meridian.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder registers this API's types with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this API's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&Cluster{}, &ClusterList{},
		&MultiClusterDeployment{}, &MultiClusterDeploymentList{},
		&MultiClusterJob{}, &MultiClusterJobList{},
		&MultiClusterService{}, &MultiClusterServiceList{},
		&MultiClusterHorizontalPodAutoscaler{}, &MultiClusterHorizontalPodAutoscalerList{},
		&CloudProvisioner{}, &CloudProvisionerList{},
		&MultiClusterRescheduler{}, &MultiClusterReschedulerList{},
		&PropagationPolicy{}, &PropagationPolicyList{},
		&ClusterPropagationPolicy{}, &ClusterPropagationPolicyList{},
		&ResourcePlacement{}, &ResourcePlacementList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
