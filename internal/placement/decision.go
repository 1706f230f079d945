package placement

// Role says why a cluster got replicas.
type Role string

// The roles of a cluster in a decision.
const (
	// RolePreferred is a cluster from the workload's locations.
	RolePreferred Role = "Preferred"
	// RoleSubstitute is a cluster used because the preferred ones were full.
	RoleSubstitute Role = "Substitute"
	// RoleBurst is a cluster the overflow burst to.
	RoleBurst Role = "Burst"
	// RoleSelected is a cluster chosen by a policy without locations.
	RoleSelected Role = "Selected"
)

// PluginScore is one plugin's weighted contribution to a cluster's score.
type PluginScore struct {
	Plugin string
	Score  int64
}

// ClusterResult explains what the framework concluded about one cluster.
type ClusterResult struct {
	Cluster string
	// Filter is the first filter that rejected the cluster, or nil.
	Filter *Status
	// Fit is how many replicas of the workload the cluster can hold now in
	// its free resources, counted node by node (ClusterInfo.FitCount),
	// besides those it runs already; zero when the cluster was filtered
	// out, since it is not counted then.
	Fit int32
	// Scores are the per-plugin weighted scores and Total their sum; empty
	// when the cluster was filtered out.
	Scores []PluginScore
	Total  int64
}

// Assignment is the replicas a decision gives one cluster.
type Assignment struct {
	Cluster  string
	Replicas int32
	Role     Role
}

// Decision is the outcome of placing one workload.
type Decision struct {
	// Assignments, in the policy's order; clusters with no replicas are
	// omitted.
	Assignments []Assignment
	// Unplaced is how many replicas fit nowhere (the provisioner's cue).
	Unplaced int32
	// Clusters explains every cluster of the snapshot, sorted by name.
	Clusters []ClusterResult

	// latencies are what the decision knew of round-trip times from the
	// workload's latency origin, read only when it is explained
	// (LatencyOf), so that deciding does no work for the explanation.
	latencies latencyView
}

// LatencyOf is the round-trip time from the workload's latency origin to
// cluster that the decision read, for its explanation.
func (d *Decision) LatencyOf(cluster string) LatencyFact {
	if d == nil {
		return LatencyFact{}
	}
	return d.latencies.fact(cluster)
}
