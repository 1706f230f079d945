package placement

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Resources is an amount of schedulable resources in integer base units:
// millicores of CPU, bytes of memory, a count of pods, and extended
// resources (for example nvidia.com/gpu) by name.
type Resources struct {
	MilliCPU int64
	Memory   int64
	Pods     int64
	// Scalar holds extended resources; nil means none.
	Scalar map[corev1.ResourceName]int64
}

// Node is one node of a member cluster as the placement framework sees it.
type Node struct {
	Name string
	// Allocatable is what the node offers to pods.
	Allocatable Resources
	// Requested is the sum of the requests of the pods bound to the node,
	// including one pod per bound pod in Requested.Pods.
	Requested Resources
	Labels    map[string]string
	Taints    []corev1.Taint
	// Unschedulable mirrors node.spec.unschedulable (cordoned).
	Unschedulable bool
}

// Prices are what one unit of a cluster's capacity costs per hour, in the
// cluster's currency. They are features of the learned scorer, which never
// compares the prices of two currencies (the Cluster API keeps one
// currency per cluster; the learned plugin refuses a snapshot in two).
type Prices struct {
	CPUHour    float64
	MemGiBHour float64
	// Currency is the ISO 4217 code of both; empty without prices.
	Currency string
}

// Cluster is one member cluster in a Snapshot.
type Cluster struct {
	Name     string
	Labels   map[string]string
	Region   string
	Zone     string
	Provider string
	GridZone string
	// Jurisdiction is the legal jurisdiction of the cluster's data (an ISO
	// 3166 code or "EU"), for the residency filter.
	Jurisdiction string
	// Cloud marks a cloud (burst) cluster: used last, and released first.
	Cloud bool
	// Ready is false when the member does not answer; such a cluster is
	// filtered out.
	Ready  bool
	Taints []corev1.Taint
	Prices Prices
	Nodes  []Node
}

// Latency is a symmetric matrix of round-trip times between clusters.
type Latency map[string]map[string]time.Duration

// WorkloadKind says which kind of member object a workload becomes.
type WorkloadKind string

// The kinds of workloads that can be placed.
const (
	KindDeployment WorkloadKind = "Deployment"
	KindJob        WorkloadKind = "Job"
	// KindCopy is an object copied whole to each cluster chosen
	// (Framework.Duplicate): it has no replicas to divide, and whether a
	// node has room plays no part.
	KindCopy WorkloadKind = "Copy"
)

// Policy names a placement policy of seed 001; each maps to a profile of
// plugins and weights.
type Policy string

// The placement policies.
const (
	PolicyClusterAffinity Policy = "ClusterAffinity"
	PolicyWorstFit        Policy = "WorstFit"
	PolicyBestFit         Policy = "BestFit"
	PolicyTrafficAware    Policy = "TrafficAware"
	// PolicyCarbon prefers the clusters whose grid zone has the lowest
	// carbon intensity now and over the next hours (Snapshot.Carbon).
	PolicyCarbon Policy = "Carbon"
	// PolicyLearned ranks the clusters by the learned cluster scorer, the
	// DeepSets DQN trained in the multi-cluster simulator (issue 14,
	// plugins/learned).
	PolicyLearned Policy = "Learned"
)

// Workload is one MultiClusterDeployment or MultiClusterJob to place.
type Workload struct {
	// Key identifies the workload and its assumptions. The controllers use
	// workload.Key, kind/namespace/name (for example
	// "MultiClusterDeployment/default/web"), which is also the inventory's
	// owner key of the member objects and pods made for it, so that what a
	// member reports can be matched to what was assumed.
	Key  string
	Kind WorkloadKind
	// Replicas is the number of pods wanted in total.
	Replicas int32
	// PodRequests is the request of one pod (see PodRequests).
	PodRequests Resources
	Tolerations []corev1.Toleration
	// ClusterSelector restricts the clusters considered; nil selects all.
	ClusterSelector labels.Selector
	Policy          Policy
	// Locations are the preferred clusters, in order of preference.
	Locations []string
	// NumberOfLocations spreads the replicas over this many clusters; zero
	// means as few as possible.
	NumberOfLocations int32
	// Substitution allows clusters outside Locations when they are full,
	// nearest first by latency from the preferred cluster.
	Substitution bool
	// Bursting allows the overflow to go to further clusters, nearest first,
	// with cloud clusters last.
	Bursting bool
	// Current is the replicas already placed per cluster, so that a
	// re-placement moves as little as possible. It must count the replicas
	// whose requests the snapshot already holds: those the member cluster
	// shows plus those assumed (see Assumptions); the previous decision's
	// assignments are a safe value. A re-scheduler that wants the ideal
	// placement leaves it empty.
	Current map[string]int32
	// Full names the clusters observed unable to run more replicas of the
	// workload than they hold (its pods stayed Unschedulable there beyond a
	// grace period, for reasons the snapshot may not show, such as pod
	// affinity). They keep their Current replicas but get no more.
	Full map[string]bool
	// MaxLatency, when positive, rules out the clusters whose round-trip
	// time from LatencyOrigin is longer or unknown.
	MaxLatency time.Duration
	// LatencyOrigin is the cluster MaxLatency is measured from; the first
	// of Locations when empty.
	LatencyOrigin string
	// Jurisdictions, when not empty, are the only legal jurisdictions the
	// workload may run in (see Cluster.Jurisdiction).
	Jurisdictions []string
}
