package clusterinventory

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
)

// GroupVersion is the Cluster Inventory API's group and version.
var GroupVersion = schema.GroupVersion{Group: "multicluster.x-k8s.io", Version: "v1alpha1"}

// Well-known names of the API.
const (
	// LabelClusterManager names the cluster manager of a ClusterProfile.
	LabelClusterManager = "x-k8s.io/cluster-manager"
	// LabelClusterSet names the ClusterSet a cluster belongs to.
	LabelClusterSet = "multicluster.x-k8s.io/clusterset"
	// ConditionControlPlaneHealthy is the condition of a cluster whose
	// control plane answers.
	ConditionControlPlaneHealthy = "ControlPlaneHealthy"
	// ExecExtension is the name of the access provider's cluster extension
	// handed to an exec credential plugin.
	ExecExtension = "client.authentication.k8s.io/exec"
)

// ClusterProfile is one cluster of a fleet.
//
// +kubebuilder:object:root=true
type ClusterProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ClusterProfileSpec   `json:"spec"`
	Status            ClusterProfileStatus `json:"status,omitempty"`
}

// ClusterProfileSpec names the cluster and the cluster manager that owns
// its profile.
type ClusterProfileSpec struct {
	DisplayName    string         `json:"displayName,omitempty"`
	ClusterManager ClusterManager `json:"clusterManager"`
}

// ClusterManager names a cluster manager; immutable.
type ClusterManager struct {
	Name string `json:"name"`
}

// ClusterProfileStatus is what the cluster manager observed.
type ClusterProfileStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Version    ClusterVersion     `json:"version,omitempty"`
	Properties []Property         `json:"properties,omitempty"`
	// CredentialProviders is the deprecated name of AccessProviders.
	CredentialProviders []AccessProvider `json:"credentialProviders,omitempty"`
	AccessProviders     []AccessProvider `json:"accessProviders,omitempty"`
}

// AccessProvider says how to reach the cluster: its connection details,
// and the name of the credential provider that gives the credentials.
type AccessProvider struct {
	Name    string              `json:"name"`
	Cluster clientcmdv1.Cluster `json:"cluster,omitempty"`
}

// ClusterVersion is the cluster's version.
type ClusterVersion struct {
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Property is a name/value pair observed on the cluster.
type Property struct {
	Name             string      `json:"name"`
	Value            string      `json:"value"`
	LastObservedTime metav1.Time `json:"lastObservedTime,omitempty"`
}

// ClusterProfileList is a list of ClusterProfiles.
//
// +kubebuilder:object:root=true
type ClusterProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProfile `json:"items"`
}

// AddToScheme registers the types.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &ClusterProfile{}, &ClusterProfileList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
