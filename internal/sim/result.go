package sim

import "time"

// Result is the outcome of running one scenario with every policy.
type Result struct {
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	Seed        uint64 `json:"seed"`
	// DurationSeconds is the virtual length of the run.
	DurationSeconds float64 `json:"durationSeconds"`
	// Tasks is how many tasks the workload submitted, Services how many
	// services it ran.
	Tasks    int            `json:"tasks"`
	Services int            `json:"services"`
	Policies []PolicyResult `json:"policies"`
}

// PolicyResult is one policy's summary (whose fields it shows inline in
// JSON), events and series.
type PolicyResult struct {
	Policy string `json:"policy"`
	Summary
	Events []Event `json:"events,omitempty"`
	// Placements are, at the end of the run, the replicas (a Deployment's)
	// or parallel pods (a Job's, completed ones included: their member Jobs
	// stay) of every workload, per member cluster, by workload key: what
	// the member objects ask for.
	Placements map[string]map[string]int32 `json:"placements,omitempty"`
	Series     *Series                     `json:"-"`
}

// Summary holds the numbers the comparison table shows. Fractions are in
// [0, 1] (allocation may exceed 1 when a cluster is overcommitted); times
// are seconds of virtual time from the start of the run.
type Summary struct {
	// MaxPendingFraction and MeanPendingFraction are over the samples of
	// the pending replicas (asked for and not Running, Pending in a member
	// or unplaced) divided by the replicas asked for.
	MaxPendingFraction  float64 `json:"maxPendingFraction"`
	MeanPendingFraction float64 `json:"meanPendingFraction"`
	MaxPendingReplicas  int     `json:"maxPendingReplicas"`
	// MaxClusterAllocation is the highest, over clusters and samples, of
	// the CPU requested by the pods assigned to a cluster (Running or
	// Pending) over its allocatable CPU; MaxClusterAllocationCluster is
	// where it was reached.
	MaxClusterAllocation        float64 `json:"maxClusterAllocation"`
	MaxClusterAllocationCluster string  `json:"maxClusterAllocationCluster"`
	// MaxOverallAllocation and MeanOverallAllocation are the same over all
	// clusters together (the cloud cluster included while it exists).
	MaxOverallAllocation  float64 `json:"maxOverallAllocation"`
	MeanOverallAllocation float64 `json:"meanOverallAllocation"`
	// Clusters is the allocation of each cluster.
	Clusters []ClusterSummary `json:"clusters"`
	// CloudCPUHours is the CPU of cloud nodes times the hours they were
	// paid for, from request to removal; CloudCost prices it by flavor.
	CloudCPUHours float64 `json:"cloudCPUHours"`
	CloudCost     float64 `json:"cloudCost"`
	// CloudMaxCores is the most CPU the cloud cluster had ready at once.
	CloudMaxCores float64 `json:"cloudMaxCores"`
	// CloudProvisionedAtSeconds is when the (first) cloud cluster was
	// asked for, CloudReadyAtSeconds when it took workloads, and
	// CloudRemovedAtSeconds when the (last) one was removed; nil if never.
	CloudProvisionedAtSeconds *float64 `json:"cloudProvisionedAtSeconds"`
	CloudReadyAtSeconds       *float64 `json:"cloudReadyAtSeconds"`
	CloudRemovedAtSeconds     *float64 `json:"cloudRemovedAtSeconds"`
	// ReplicasMovedBack counts the replicas the re-scheduler pulled back
	// to their preferred clusters.
	ReplicasMovedBack int `json:"replicasMovedBack"`
	// ReplicasLeftCloud counts the replicas the re-scheduler moved out of
	// the cloud cluster while its provisioner forecast a settled demand
	// (home or to other member clusters).
	ReplicasLeftCloud int `json:"replicasLeftCloud"`
	// Decisions is how many times the placement framework was called, and
	// DecisionP50Seconds and DecisionP99Seconds the wall time of one call
	// (the only numbers that vary between runs with the same seed; zero for
	// a policy that does not call the framework).
	Decisions          int     `json:"decisions"`
	DecisionP50Seconds float64 `json:"decisionP50Seconds"`
	DecisionP99Seconds float64 `json:"decisionP99Seconds"`
	// TrafficLocalFraction is, for services with a load, the fraction of
	// their Running replicas (over samples) in the cluster their users are
	// at, and MeanUserRTTMs the mean round-trip time from the users to a
	// replica; nil without such services.
	TrafficLocalFraction *float64 `json:"trafficLocalFraction,omitempty"`
	MeanUserRTTMs        *float64 `json:"meanUserRTTMs,omitempty"`
	// JobsCompleted counts the job replicas that ran to completion;
	// PodsEvicted the pods lost to a removed node.
	JobsCompleted int `json:"jobsCompleted"`
	PodsEvicted   int `json:"podsEvicted"`
}

// ClusterSummary is the CPU allocation of one cluster.
type ClusterSummary struct {
	Cluster           string  `json:"cluster"`
	Cloud             bool    `json:"cloud,omitempty"`
	MaxAllocation     float64 `json:"maxAllocation"`
	MeanAllocation    float64 `json:"meanAllocation"`
	MaxPendingPods    int     `json:"maxPendingPods"`
	ReplicasScheduled int     `json:"replicasScheduled"`
}

// Event is something the management plane did.
type Event struct {
	AtSeconds float64 `json:"atSeconds"`
	Kind      string  `json:"kind"`
	Message   string  `json:"message"`
}

// The kinds of events.
const (
	EventCloudProvisioning = "CloudProvisioning"
	EventCloudReady        = "CloudReady"
	EventCloudRemoved      = "CloudRemoved"
	EventNodesAdded        = "NodesAdded"
	EventNodesReady        = "NodesReady"
	EventNodesRemoved      = "NodesRemoved"
	EventPulledBack        = "PulledBack"
	EventLeftCloud         = "LeftCloud"
	EventMemberLost        = "MemberLost"
	EventFailedOver        = "FailedOver"
	EventMemberReturned    = "MemberReturned"
)

// Series are the sampled time series of one policy's run.
type Series struct {
	// Minutes are the sample times.
	Minutes []float64
	// Clusters are the clusters that existed during the run, in order
	// (member clusters, then the cloud).
	Clusters []string
	// Per cluster (indexed like Clusters), per sample: CPU requested by
	// the pods assigned (Running or Pending) and allocatable, in cores;
	// Running and Pending pods.
	AssignedCores    [][]float64
	AllocatableCores [][]float64
	RunningPods      [][]int
	PendingPods      [][]int
	// Per sample: replicas asked for, Running, unplaced; the pending
	// fraction; the overall allocation; the cloud's ready and paid cores.
	Asked           []int
	Running         []int
	Unplaced        []int
	PendingFraction []float64
	Allocation      []float64
	CloudCores      []float64
	CloudPaidCores  []float64
}

func seconds(d time.Duration) float64 { return d.Seconds() }
