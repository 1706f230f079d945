package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PlacementPolicy names how clusters are ranked.
// +kubebuilder:validation:Enum=ClusterAffinity;WorstFit;BestFit;TrafficAware;Carbon;Learned
type PlacementPolicy string

// The placement policies of seed 001.
const (
	// ClusterAffinity prefers the clusters in locations, in order.
	ClusterAffinity PlacementPolicy = "ClusterAffinity"
	// WorstFit prefers the clusters with the most free resources.
	WorstFit PlacementPolicy = "WorstFit"
	// BestFit prefers the clusters with the least free resources that fit.
	BestFit PlacementPolicy = "BestFit"
	// TrafficAware prefers the clusters that receive the most traffic for
	// the workload.
	TrafficAware PlacementPolicy = "TrafficAware"
	// Carbon prefers the clusters whose electricity grid (spec.gridZone)
	// has the lowest carbon intensity now and over the next hours.
	Carbon PlacementPolicy = "Carbon"
	// Learned ranks the clusters by the learned cluster scorer (a DeepSets
	// DQN trained in the multi-cluster simulator; docs/learn-clusters.md).
	Learned PlacementPolicy = "Learned"
)

// SubstitutionPolicy names how substitute clusters are chosen.
// +kubebuilder:validation:Enum=NearestFirst
type SubstitutionPolicy string

// BurstingPolicy names how clusters are chosen for the overflow.
// +kubebuilder:validation:Enum=NearestFirst
type BurstingPolicy string

const (
	// SubstituteNearestFirst picks the cluster with the lowest latency from
	// the preferred cluster.
	SubstituteNearestFirst SubstitutionPolicy = "NearestFirst"
	// BurstNearestFirst sends the overflow to the clusters with the lowest
	// latency from the cluster it overflows, cloud clusters last.
	BurstNearestFirst BurstingPolicy = "NearestFirst"
)

// Placement says where a workload's replicas may go and in which order.
//
// +kubebuilder:validation:XValidation:rule="!has(self.policy) || self.policy != 'ClusterAffinity' || (has(self.locations) && size(self.locations) > 0)",message="policy ClusterAffinity needs at least one cluster in locations",fieldPath=".locations"
// +kubebuilder:validation:XValidation:rule="!has(self.numberOfLocations) || !has(self.locations) || size(self.locations) == 0 || self.numberOfLocations <= size(self.locations) || (has(self.substitution) && self.substitution.enabled)",message="numberOfLocations exceeds the number of locations and substitution is not enabled",fieldPath=".numberOfLocations"
// +kubebuilder:validation:XValidation:rule="!has(self.latencyLimit) || has(self.latencyLimit.origin) || (has(self.locations) && size(self.locations) > 0)",message="latencyLimit needs an origin: set latencyLimit.origin or at least one cluster in locations",fieldPath=".latencyLimit"
type Placement struct {
	// policy ranks the candidate clusters. It defaults to ClusterAffinity
	// when locations are given and to WorstFit otherwise.
	// +optional
	Policy PlacementPolicy `json:"policy,omitempty"`

	// locations are the preferred clusters, most preferred first.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	Locations []ClusterName `json:"locations,omitempty"`

	// numberOfLocations spreads the replicas over this many clusters. When
	// unset, replicas go to as few clusters as hold them.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	NumberOfLocations *int32 `json:"numberOfLocations,omitempty"`

	// clusterSelector restricts placement to Clusters whose labels match.
	// +optional
	ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`

	// clusterTolerations let the workload go to Clusters with matching
	// taints.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	ClusterTolerations []corev1.Toleration `json:"clusterTolerations,omitempty"`

	// substitution lets replicas go to clusters outside locations when the
	// preferred clusters cannot hold them.
	// +optional
	Substitution *Substitution `json:"substitution,omitempty"`

	// bursting lets the replicas that no longer fit where the workload runs
	// overflow to further clusters, and to a cloud cluster last.
	// +optional
	Bursting *Bursting `json:"bursting,omitempty"`

	// latencyLimit rules out the clusters farther than a round-trip time
	// from an origin cluster.
	// +optional
	LatencyLimit *LatencyLimit `json:"latencyLimit,omitempty"`

	// residency keeps the workload in clusters of the listed legal
	// jurisdictions (Cluster spec.jurisdiction).
	// +optional
	Residency *Residency `json:"residency,omitempty"`

	// traffic says how to read the traffic each cluster receives for the
	// workload, for the TrafficAware policy. Unset fields take the
	// controller's defaults (--traffic-query, --traffic-cluster-label).
	// +optional
	Traffic *TrafficSource `json:"traffic,omitempty"`
}

// LatencyLimit bounds the round-trip time from an origin cluster.
type LatencyLimit struct {
	// origin is the Cluster the round-trip times are measured from. It
	// defaults to the first of locations.
	// +optional
	Origin ClusterName `json:"origin,omitempty"`

	// maxRTT is the largest round-trip time allowed, for example "50ms". A
	// cluster whose round-trip time from the origin is unknown is ruled out.
	// +required
	MaxRTT metav1.Duration `json:"maxRTT"`
}

// Residency lists the legal jurisdictions a workload's data may be in.
type Residency struct {
	// jurisdictions are ISO 3166-1 alpha-2 country codes, optionally with a
	// subdivision ("US-CA"), or "EU"; a cluster is eligible when its
	// spec.jurisdiction is one of them, or is a country of the EU and "EU"
	// is listed.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[A-Z]{2}(-[A-Z0-9]{1,3})?$`
	// +kubebuilder:validation:items:MaxLength=6
	Jurisdictions []string `json:"jurisdictions"`
}

// TrafficSource is a Prometheus query for the traffic a workload receives,
// per cluster.
type TrafficSource struct {
	// query is a PromQL expression that returns an instant vector with one
	// or more series per cluster, for example
	// `sum by (cluster) (rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[1m]))`.
	// It is a Go template: {{.Namespace}} and {{.Name}} are the
	// MultiClusterDeployment's.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Query string `json:"query,omitempty"`

	// clusterLabel is the label of the query's series that holds the
	// Cluster name.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_][a-zA-Z0-9_]*$`
	// +kubebuilder:validation:MaxLength=128
	ClusterLabel string `json:"clusterLabel,omitempty"`
}

// Substitution configures substitute clusters.
//
// +kubebuilder:validation:XValidation:rule="!has(self.policy) || self.enabled",message="substitution.policy is set but substitution.enabled is false; set enabled: true or remove policy",fieldPath=".policy"
type Substitution struct {
	// enabled turns substitution on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// policy orders the substitute clusters; the default is NearestFirst.
	// +optional
	Policy SubstitutionPolicy `json:"policy,omitempty"`
}

// Bursting configures overflow to further clusters.
//
// +kubebuilder:validation:XValidation:rule="!has(self.policy) || self.enabled",message="bursting.policy is set but bursting.enabled is false; set enabled: true or remove policy",fieldPath=".policy"
type Bursting struct {
	// enabled turns bursting on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// policy orders the clusters the overflow goes to; the default is
	// NearestFirst.
	// +optional
	Policy BurstingPolicy `json:"policy,omitempty"`
}

// PlacementReason says why a cluster holds replicas, or why it holds none.
type PlacementReason string

// The reasons of a cluster decision.
const (
	// PlacementPreferred is a cluster from locations.
	PlacementPreferred PlacementReason = "Preferred"
	// PlacementSubstitute is a cluster used because the preferred ones were
	// full.
	PlacementSubstitute PlacementReason = "Substitute"
	// PlacementBurst is a cluster the overflow burst to.
	PlacementBurst PlacementReason = "Burst"
	// PlacementSelected is a cluster chosen by the policy's ranking.
	PlacementSelected PlacementReason = "Selected"
	// PlacementFiltered is a cluster ruled out; the message says why.
	PlacementFiltered PlacementReason = "Filtered"
	// PlacementNotChosen is a cluster that passed the filters but was not
	// needed.
	PlacementNotChosen PlacementReason = "NotChosen"
)

// Places reports whether a cluster with this reason holds the workload
// (replicas, or a copy of an object that is not divided).
func (r PlacementReason) Places() bool {
	switch r {
	case PlacementPreferred, PlacementSubstitute, PlacementBurst, PlacementSelected:
		return true
	}
	return false
}

// ClusterDecision is the placement's outcome for one cluster, and what
// Meridian observed of the workload there.
type ClusterDecision struct {
	// name of the Cluster.
	// +required
	Name ClusterName `json:"name"`

	// replicas placed on the cluster.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas,omitempty"`

	// readyReplicas observed in the cluster.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// pendingReplicas observed Pending (unschedulable) in the cluster.
	// +optional
	// +kubebuilder:validation:Minimum=0
	PendingReplicas int32 `json:"pendingReplicas,omitempty"`

	// reason says why the cluster holds replicas or why it holds none.
	// +required
	// +kubebuilder:validation:Enum=Preferred;Substitute;Burst;Selected;Filtered;NotChosen
	Reason PlacementReason `json:"reason"`

	// message explains the reason, for example the filter that ruled the
	// cluster out.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// score is the cluster's total score under the policy.
	// +optional
	Score *int64 `json:"score,omitempty"`

	// pluginScores are the weighted scores of each placement plugin.
	// +optional
	// +listType=map
	// +listMapKey=plugin
	// +kubebuilder:validation:MaxItems=32
	PluginScores []PluginScore `json:"pluginScores,omitempty"`
}

// PluginScore is one placement plugin's weighted score for a cluster.
type PluginScore struct {
	// plugin is the placement plugin's name.
	// +required
	// +kubebuilder:validation:MaxLength=63
	Plugin string `json:"plugin"`

	// score is the plugin's weighted score.
	// +required
	Score int64 `json:"score"`
}

// Workload condition types and reasons, shared by MultiClusterDeployment
// and MultiClusterJob.
const (
	// ConditionReady summarises the others: True when the workload is
	// placed, propagated and (a Deployment) available, or (a Job) placed
	// and not failed; otherwise False with the reason and message of the
	// first condition that is not as needed.
	ConditionReady = "Ready"
	// ConditionPlaced is True when every replica has a cluster.
	ConditionPlaced = "Placed"
	// ConditionPropagated is True when the member objects match the
	// decision.
	ConditionPropagated = "Propagated"
	// ConditionAvailable is True when the wanted replicas are ready.
	ConditionAvailable = "Available"
	// ConditionReplicasPending is True while replicas sit Pending
	// (unschedulable) in member clusters.
	ConditionReplicasPending = "ReplicasPending"
	// ConditionTrafficRead is True when the last traffic reading of a
	// TrafficAware workload succeeded; False keeps the last good reading.
	ConditionTrafficRead = "TrafficRead"

	// ReasonReady means every condition Ready summarises is as needed.
	ReasonReady = "Ready"
	// ReasonNotObserved means a condition Ready summarises is not
	// reported yet.
	ReasonNotObserved = "NotObserved"
	// ReasonPlaced means every replica was placed.
	ReasonPlaced = "Placed"
	// ReasonInsufficientCapacity means some replicas fit no cluster.
	ReasonInsufficientCapacity = "InsufficientCapacity"
	// ReasonNoCluster means every cluster was filtered out.
	ReasonNoCluster = "NoCluster"
	// ReasonInvalidSpec means the spec cannot be placed as written.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonTrafficRead means the traffic was read from the source.
	ReasonTrafficRead = "Read"
	// ReasonTrafficUnavailable means the traffic source failed or no
	// source is configured; the message says which.
	ReasonTrafficUnavailable = "TrafficUnavailable"

	// ReasonPropagated means the member objects match the decision.
	ReasonPropagated = "Propagated"
	// ReasonWaitingForNewReplicas means replicas move: the new ones must be
	// ready before the old ones are removed.
	ReasonWaitingForNewReplicas = "WaitingForNewReplicas"
	// ReasonDisruptionBudget means a move waits for a PodDisruptionBudget.
	ReasonDisruptionBudget = "DisruptionBudget"
	// ReasonMemberUnreachable means a member that should change is not
	// connected; its objects are written when it is.
	ReasonMemberUnreachable = "MemberUnreachable"
	// ReasonApplyFailed means writing a member object failed.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonReplicasReady and ReasonReplicasNotReady say whether the wanted
	// replicas are ready.
	ReasonReplicasReady    = "ReplicasReady"
	ReasonReplicasNotReady = "ReplicasNotReady"
	// ReasonUnschedulable means replicas are Pending, Unschedulable, in
	// members; ReasonNoPendingReplicas that none is.
	ReasonUnschedulable     = "Unschedulable"
	ReasonNoPendingReplicas = "NoPendingReplicas"
)
