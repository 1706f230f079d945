package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CloudProvisioner condition types and reasons.
const (
	// CloudProvisionerReady is True while the cloud cluster exists, has
	// joined as a Cluster and that Cluster is Ready.
	CloudProvisionerReady = "Ready"
	// CloudProvisionerActive is True for the one CloudProvisioner that
	// acts (the oldest); the others stand by, so that two cloud clusters
	// are never provisioned for the same replicas.
	CloudProvisionerActive = "Active"

	// CloudReasonNoCluster means no cloud cluster exists: the member
	// clusters hold every replica.
	CloudReasonNoCluster = "NoCloudCluster"
	// CloudReasonProvisioning means the backend is creating the cluster;
	// the message says what it waits for.
	CloudReasonProvisioning = "Provisioning"
	// CloudReasonJoined means the cloud cluster is a Ready member.
	CloudReasonJoined = "Joined"
	// CloudReasonDeprovisioning means the cloud cluster is being removed.
	CloudReasonDeprovisioning = "Deprovisioning"
	// CloudReasonBackendError means the backend failed; the message holds
	// the error.
	CloudReasonBackendError = "BackendError"
	// CloudReasonInvalidSpec means the spec cannot be acted on; the message
	// names the field and what would be valid.
	CloudReasonInvalidSpec = "InvalidSpec"
	// CloudReasonOldest marks the acting CloudProvisioner.
	CloudReasonOldest = "Oldest"
	// CloudReasonStandby marks a CloudProvisioner that waits because an
	// older one acts.
	CloudReasonStandby = "Standby"
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

// ProvisioningMode says whether the provisioner waits for replicas to be
// unschedulable or also provisions ahead of a rising demand.
// +kubebuilder:validation:Enum=Reactive;Predictive
type ProvisioningMode string

// The provisioning modes.
const (
	// ModeReactive provisions for replicas that fit nowhere now (seed 001's
	// Algorithm 4).
	ModeReactive ProvisioningMode = "Reactive"
	// ModePredictive also provisions for the demand forecast over the time
	// new capacity takes to arrive.
	ModePredictive ProvisioningMode = "Predictive"
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
	// +kubebuilder:validation:MaxLength=15
	FloatingIP string `json:"floatingIP,omitempty"`

	// mode says whether to provision only for replicas that fit nowhere now
	// (Reactive) or also ahead of a rising demand (Predictive).
	// +optional
	// +kubebuilder:default=Reactive
	Mode ProvisioningMode `json:"mode,omitempty"`

	// flavors are the machine sizes the cloud cluster may have, one node
	// pool each (one MachineDeployment with Cluster API, one kwok node
	// group on the testbed). For the replicas that fit nowhere the
	// provisioner chooses the cheapest mix of flavors they pack into, and
	// never a flavor too small for a replica. Prices are compared, so
	// every priced flavor is in one currency.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(f, !has(f.pricePerHour) || self.all(g, !has(g.pricePerHour) || g.pricePerHour.currency == f.pricePerHour.currency))",message="every flavor's pricePerHour must be in one currency: the provisioner compares flavors by price"
	Flavors []CloudFlavor `json:"flavors"`

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

// CloudFlavor is one machine size of the cloud: a node pool of the cloud
// cluster.
type CloudFlavor struct {
	// name of the node pool; it names the pool's MachineDeployment and
	// labels its nodes, for example "m1-large".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// instanceType is the provider's machine type, for example "m1.large"
	// (OpenStack) or "m5.xlarge" (AWS); the name when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	InstanceType string `json:"instanceType,omitempty"`

	// cpu cores of one node, for example "4" or "3500m".
	// +required
	CPU resource.Quantity `json:"cpu"`

	// memory of one node, for example "16Gi".
	// +required
	Memory resource.Quantity `json:"memory"`

	// pods one node admits (the kubelet's max-pods).
	// +optional
	// +kubebuilder:default=110
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Pods int32 `json:"pods,omitempty"`

	// pricePerHour is what one node of the flavor costs for one hour, in
	// the currency the cloud bills, such as {amount: "0.16", currency:
	// USD}. The provisioner compares flavors by it, so every priced flavor
	// is in one currency; flavors without a price cost nothing, so the
	// smallest that fits wins.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self.amount).startsWith('-')",message="amount must not be negative",fieldPath=".amount"
	PricePerHour *Money `json:"pricePerHour,omitempty"`
}

// LabelNodePool is the label on a cloud node that names its node pool
// (CloudFlavor name). Cluster API copies labels of this domain from a
// Machine to its Node; the testbed backend sets it on the nodes it creates.
const LabelNodePool = "meridian.node.cluster.x-k8s.io/pool"

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

// DemandTrend is what the predictive mode forecasts of the demand.
// +kubebuilder:validation:Enum=Rising;Settled
type DemandTrend string

// The demand trends of the predictive mode.
const (
	// DemandRising: the forecast expects more replicas over the node delay
	// than there is room for now.
	DemandRising DemandTrend = "Rising"
	// DemandSettled: the forecast expects no rise over the node delay.
	DemandSettled DemandTrend = "Settled"
)

// CloudProvisionerStatus is the cloud cluster's life so far.
type CloudProvisionerStatus struct {
	// conditions are the provisioner's: Ready when the cloud cluster is
	// joined, Active when this is the CloudProvisioner that acts.
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

	// nodes the cloud cluster has now, ready or not.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`

	// readyNodes of the cloud cluster that take pods.
	// +optional
	ReadyNodes int32 `json:"readyNodes,omitempty"`

	// desiredNodes is how many worker nodes were last asked of the backend,
	// over all pools.
	// +optional
	DesiredNodes int32 `json:"desiredNodes,omitempty"`

	// pools are the worker nodes of each node pool (flavor).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Pools []NodePoolStatus `json:"pools,omitempty"`

	// lastDecision is the provisioner's last action other than None.
	// +optional
	LastDecision *ProvisionerDecision `json:"lastDecision,omitempty"`

	// provisioningStartedTime is when the cloud cluster was last asked for.
	// +optional
	ProvisioningStartedTime *metav1.Time `json:"provisioningStartedTime,omitempty"`

	// provisionedTime is when the cloud cluster became Ready.
	// +optional
	ProvisionedTime *metav1.Time `json:"provisionedTime,omitempty"`

	// emptySince is when the cloud cluster last became empty.
	// +optional
	EmptySince *metav1.Time `json:"emptySince,omitempty"`

	// demandTrend is what the predictive mode forecast of the demand at the
	// last decision: Rising, or Settled when it expects no rise over the
	// node delay; empty in reactive mode. While it is Settled, an active
	// MultiClusterRescheduler moves replicas out of this cloud cluster to
	// any member cluster their placement allows that has room, not only
	// back to their preferred clusters, so that the cloud's nodes empty
	// and are removed; while it rises, that room in the members is kept for
	// the bursts the forecast expects.
	// +optional
	DemandTrend DemandTrend `json:"demandTrend,omitempty"`
}

// NodePoolStatus is what one node pool of the cloud cluster has.
type NodePoolStatus struct {
	// name of the pool (the CloudFlavor's name).
	// +required
	// +kubebuilder:validation:MaxLength=20
	Name string `json:"name"`
	// desiredNodes is how many worker nodes of the pool were last asked of
	// the backend.
	// +optional
	DesiredNodes int32 `json:"desiredNodes,omitempty"`
	// nodes the pool has now, ready or not.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`
	// readyNodes of the pool that take pods.
	// +optional
	ReadyNodes int32 `json:"readyNodes,omitempty"`
	// removed is true for a pool whose flavor is no longer in
	// spec.flavors: its nodes are drained and removed, then the pool is
	// deleted.
	// +optional
	Removed bool `json:"removed,omitempty"`
	// removing names the worker nodes asked to be removed from the pool,
	// until the cloud cluster no longer has them: desiredNodes already
	// leaves them out, and a restarted controller asks for these nodes,
	// not others, to go.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=253
	Removing []string `json:"removing,omitempty"`
}

// ProvisionerDecision is one decision of the provisioner, as it explained
// it.
type ProvisionerDecision struct {
	// action taken: ProvisionCluster, AddNodes, RemoveNodes or RemoveCluster.
	// +required
	Action ProvisionerAction `json:"action"`

	// nodes added or removed.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`

	// reason in words.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason,omitempty"`

	// time of the decision.
	// +required
	Time metav1.Time `json:"time"`
}

// ProvisionerAction is what the provisioner decided to do.
// +kubebuilder:validation:Enum=ProvisionCluster;AddNodes;RemoveNodes;RemoveCluster
type ProvisionerAction string

// The provisioner's actions; a pass that changes nothing records none.
const (
	ActionProvisionCluster ProvisionerAction = "ProvisionCluster"
	ActionAddNodes         ProvisionerAction = "AddNodes"
	ActionRemoveNodes      ProvisionerAction = "RemoveNodes"
	ActionRemoveCluster    ProvisionerAction = "RemoveCluster"
)

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
// +kubebuilder:printcolumn:name="Last",type=string,JSONPath=`.status.lastDecision.action`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CloudProvisioner struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
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
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CloudProvisioner `json:"items"`
}
