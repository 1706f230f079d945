package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Cluster condition types and reasons.
const (
	// ClusterReady is True while Meridian reaches the member's API server
	// and its nodes are reported.
	ClusterReady = "Ready"

	// ClusterReasonConnected means the member answered the last heartbeat.
	ClusterReasonConnected = "Connected"
	// ClusterReasonUnreachable means the member did not answer; the message
	// holds the error.
	ClusterReasonUnreachable = "Unreachable"
	// ClusterReasonKubeconfigInvalid means the referenced Secret is missing
	// or does not hold a usable kubeconfig.
	ClusterReasonKubeconfigInvalid = "KubeconfigInvalid"
)

// ClusterSpec says how to reach a member cluster, where it is and what it
// costs.
type ClusterSpec struct {
	// kubeconfigSecretRef references the Secret that holds the kubeconfig
	// Meridian uses to reach the member. The key defaults to "kubeconfig".
	// Credentials are never written into the Cluster itself.
	// +required
	KubeconfigSecretRef SecretReference `json:"kubeconfigSecretRef"`

	// region the cluster runs in, for example "eu-west-3" or "rennes".
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Region string `json:"region,omitempty"`

	// zone within the region.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Zone string `json:"zone,omitempty"`

	// provider that runs the cluster, for example "OnPremises", "OpenStack",
	// "AWS", "Azure" or "GCP".
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9-]*$`
	Provider string `json:"provider,omitempty"`

	// gridZone is the electricity grid zone the cluster draws power from,
	// as Electricity Maps names zones ("FR", "DE", "US-CAL-CISO"); it keys
	// carbon intensity.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[A-Z]{2}(-[A-Z0-9]+)*$`
	GridZone string `json:"gridZone,omitempty"`

	// jurisdiction is the legal jurisdiction whose data-protection law
	// governs the cluster's data, as an ISO 3166-1 alpha-2 country code
	// ("DE", "US"), optionally with a subdivision ("US-CA"), or "EU" for
	// the European Union. Workloads with spec.placement.residency go only
	// to clusters in the jurisdictions they list; a cluster without one is
	// not eligible for them.
	// +optional
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:Pattern=`^[A-Z]{2}(-[A-Z0-9]{1,3})?$`
	Jurisdiction string `json:"jurisdiction,omitempty"`

	// coordinates of the cluster, for distance-based policies and maps.
	// +optional
	Coordinates *Coordinates `json:"coordinates,omitempty"`

	// cloud marks a cloud (burst) cluster: it receives replicas only when
	// the clusters that are not cloud clusters are full, and gives them back
	// first.
	// +optional
	Cloud bool `json:"cloud,omitempty"`

	// prices of the cluster's capacity; placement policies that weigh cost
	// read them.
	// +optional
	Prices *ClusterPrices `json:"prices,omitempty"`

	// taints repel workloads that do not tolerate them, as node taints do
	// for pods. Labels for placement are the Cluster's metadata.labels.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Taints []corev1.Taint `json:"taints,omitempty"`

	// latencies declares the round-trip time from this cluster to others,
	// used until measured latencies are reported in status.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=1000
	Latencies []ClusterLatency `json:"latencies,omitempty"`
}

// Coordinates are a point on Earth in decimal degrees.
type Coordinates struct {
	// latitude in decimal degrees, from -90 to 90, for example "48.1173".
	// +required
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).compareTo(quantity('-90')) >= 0 && quantity(string(self)).compareTo(quantity('90')) <= 0",message="latitude must be between -90 and 90"
	Latitude resource.Quantity `json:"latitude"`

	// longitude in decimal degrees, from -180 to 180, for example "-1.6778".
	// +required
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).compareTo(quantity('-180')) >= 0 && quantity(string(self)).compareTo(quantity('180')) <= 0",message="longitude must be between -180 and 180"
	Longitude resource.Quantity `json:"longitude"`
}

// ClusterPrices are what the cluster's capacity costs for an hour, both in
// one currency.
//
// +kubebuilder:validation:XValidation:rule="!has(self.cpuHour) || !has(self.memoryGiBHour) || self.cpuHour.currency == self.memoryGiBHour.currency",message="cpuHour and memoryGiBHour must be in one currency, the cluster's",fieldPath=".memoryGiBHour.currency"
type ClusterPrices struct {
	// cpuHour is one CPU core's price for an hour, for example {amount:
	// "0.031", currency: EUR}.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self.amount).startsWith('-')",message="amount must not be negative",fieldPath=".amount"
	CPUHour *Money `json:"cpuHour,omitempty"`

	// memoryGiBHour is one GiB of memory's price for an hour, in the
	// currency of cpuHour.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!string(self.amount).startsWith('-')",message="amount must not be negative",fieldPath=".amount"
	MemoryGiBHour *Money `json:"memoryGiBHour,omitempty"`
}

// ClusterLatency is the round-trip time to another cluster.
type ClusterLatency struct {
	// cluster is the name of the other Cluster.
	// +required
	Cluster ClusterName `json:"cluster"`

	// rtt is the round-trip time, for example "2.16ms".
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	RTT metav1.Duration `json:"rtt"`

	// measuredAt is when a measured round-trip time (status.latencies) was
	// measured; placement uses it while it is fresh and the declared one
	// (spec.latencies) after. Not set on declared ones.
	// +optional
	MeasuredAt *metav1.Time `json:"measuredAt,omitempty"`
}

// ClusterStatus is what Meridian last observed of a member.
type ClusterStatus struct {
	// conditions of the object: Ready says whether the member answers.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// lastHeartbeatTime is when the member last answered.
	// +optional
	LastHeartbeatTime *metav1.Time `json:"lastHeartbeatTime,omitempty"`

	// kubernetesVersion of the member's API server.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`

	// nodeCount is the number of nodes in the member.
	// +optional
	NodeCount int32 `json:"nodeCount,omitempty"`

	// capacity sums the capacity of the member's nodes.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`

	// allocatable sums the allocatable resources of the member's
	// schedulable nodes.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`

	// allocated sums the requests of the pods bound to the member's nodes
	// that have not finished.
	// +optional
	Allocated corev1.ResourceList `json:"allocated,omitempty"`

	// probeAddress is where the member's latency prober (meridian probe)
	// answers the probers of other members, host:port, as it advertises it;
	// the controller hands it to them as a target.
	// +optional
	// +kubebuilder:validation:MaxLength=261
	ProbeAddress string `json:"probeAddress,omitempty"`

	// latencies are the round-trip times to other clusters that the
	// member's prober measured, with when.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=1000
	Latencies []ClusterLatency `json:"latencies,omitempty"`
}

// Cluster is a member Kubernetes cluster that Meridian places workloads on.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=mcl,categories=meridian
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Cloud",type=boolean,JSONPath=`.spec.cloud`
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.status.nodeCount`
// +kubebuilder:printcolumn:name="CPU",type=string,JSONPath=`.status.allocatable.cpu`,description="Allocatable CPU"
// +kubebuilder:printcolumn:name="CPU Allocated",type=string,JSONPath=`.status.allocated.cpu`,priority=1
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.kubernetesVersion`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Cluster struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says how to reach the member and where it is.
	// +required
	Spec ClusterSpec `json:"spec"`

	// status is what Meridian observed of the member.
	// +optional
	Status ClusterStatus `json:"status,omitempty"`
}

// ClusterList is a list of Clusters.
//
// +kubebuilder:object:root=true
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cluster `json:"items"`
}
