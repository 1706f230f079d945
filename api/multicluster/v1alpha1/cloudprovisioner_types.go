package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProvisionerBackend names how a cloud cluster is created.
// +kubebuilder:validation:Enum=ClusterAPI;Testbed
type ProvisionerBackend string

// The provisioner backends.
const (
	// BackendClusterAPI creates Cluster API objects for a real cloud.
	BackendClusterAPI ProvisionerBackend = "ClusterAPI"
	// BackendTestbed starts a local member cluster with fake nodes.
	BackendTestbed ProvisionerBackend = "Testbed"
)

// CloudProvider names a cloud a cluster can be provisioned in.
// +kubebuilder:validation:Enum=OpenStack;AWS;Azure;GCP;Testbed
type CloudProvider string

// CloudProvisionerSpec says where and how to create a cloud (burst) cluster
// when the member clusters are full, and when to scale and remove it.
//
// +kubebuilder:validation:XValidation:rule="self.minNodes <= self.maxNodes",message="minNodes must be less than or equal to maxNodes",fieldPath=".minNodes"
// +kubebuilder:validation:XValidation:rule="(self.backend == 'Testbed') == (self.provider == 'Testbed')",message="provider Testbed goes with backend Testbed, and only with it",fieldPath=".provider"
// +kubebuilder:validation:XValidation:rule="self.backend == 'Testbed' || has(self.credentialsSecretRef)",message="credentialsSecretRef is required for a real cloud",fieldPath=".credentialsSecretRef"
type CloudProvisionerSpec struct {
	// cloudClusterName is the name of the Cluster created in the cloud.
	// +required
	CloudClusterName ClusterName `json:"cloudClusterName"`

	// provider is the cloud to provision in.
	// +required
	Provider CloudProvider `json:"provider"`

	// backend creates the cluster.
	// +optional
	// +kubebuilder:default=ClusterAPI
	Backend ProvisionerBackend `json:"backend,omitempty"`

	// region of the cloud to provision in, for example "nancy" or
	// "eu-west-3".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Region string `json:"region"`

	// credentialsSecretRef references the Secret with the cloud credentials
	// (for OpenStack a clouds.yaml). Credentials are never written inline.
	// +optional
	CredentialsSecretRef *SecretReference `json:"credentialsSecretRef,omitempty"`

	// floatingIP is the address given to the cloud cluster's API server
	// (OpenStack).
	// +optional
	// +kubebuilder:validation:Format=ipv4
	FloatingIP string `json:"floatingIP,omitempty"`

	// nodeSize is the size of each worker node.
	// +required
	NodeSize NodeSize `json:"nodeSize"`

	// minNodes is the fewest worker nodes while the cluster exists.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	MinNodes int32 `json:"minNodes,omitempty"`

	// maxNodes is the most worker nodes the cluster grows to.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	MaxNodes int32 `json:"maxNodes"`

	// scaleDownDelay is how long a node must be unneeded before it is
	// removed (seed 001: 10 minutes).
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	ScaleDownDelay *metav1.Duration `json:"scaleDownDelay,omitempty"`

	// deprovisionDelay is how long the cluster must be empty before it is
	// removed (seed 001: 20 minutes).
	// +optional
	// +kubebuilder:default="20m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	DeprovisionDelay *metav1.Duration `json:"deprovisionDelay,omitempty"`
}

// NodeSize is the size of a cloud worker node.
type NodeSize struct {
	// flavor is the provider's instance type, for example "m1.large".
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Flavor string `json:"flavor,omitempty"`

	// cpu cores of one node.
	// +required
	CPU resource.Quantity `json:"cpu"`

	// memory of one node.
	// +required
	Memory resource.Quantity `json:"memory"`
}

// CloudProvisionerPhase is where the cloud cluster is in its life.
// +kubebuilder:validation:Enum=Idle;Provisioning;Ready;Deprovisioning
type CloudProvisionerPhase string

// The phases of a cloud cluster.
const (
	PhaseIdle           CloudProvisionerPhase = "Idle"
	PhaseProvisioning   CloudProvisionerPhase = "Provisioning"
	PhaseReady          CloudProvisionerPhase = "Ready"
	PhaseDeprovisioning CloudProvisionerPhase = "Deprovisioning"
)

// CloudProvisionerStatus is the cloud cluster's life so far.
type CloudProvisionerStatus struct {
	// conditions: Ready when the cloud cluster is joined.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// phase of the cloud cluster.
	// +optional
	Phase CloudProvisionerPhase `json:"phase,omitempty"`

	// nodes the cloud cluster has now.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`

	// provisionedTime is when the cloud cluster became Ready.
	// +optional
	ProvisionedTime *metav1.Time `json:"provisionedTime,omitempty"`

	// emptySince is when the cloud cluster last became empty.
	// +optional
	EmptySince *metav1.Time `json:"emptySince,omitempty"`
}

// CloudProvisioner creates, scales and removes a cloud cluster when the
// member clusters cannot hold the workloads.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=cprov,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.cloudClusterName`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.status.nodes`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CloudProvisioner struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says where and how to create the cloud cluster.
	// +required
	Spec CloudProvisionerSpec `json:"spec"`

	// status is the cloud cluster's life so far.
	// +optional
	Status CloudProvisionerStatus `json:"status,omitempty"`
}

// CloudProvisionerList is a list of CloudProvisioners.
//
// +kubebuilder:object:root=true
type CloudProvisionerList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CloudProvisioner `json:"items"`
}
