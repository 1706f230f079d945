package placement

// ClusterInfo is a Cluster with what the framework derives from it once per
// snapshot (free resources per node, totals).
type ClusterInfo struct {
	Cluster
	// Free is, per node (indexed like Nodes), Allocatable - Requested -
	// assumed, never negative.
	Free []Resources
	// TotalAllocatable and TotalFree sum Allocatable and Free over the
	// schedulable nodes.
	TotalAllocatable Resources
	TotalFree        Resources
}

// Snapshot is the state of all member clusters that one decision reads. The
// simulator fills it from its model; the controller from the inventory.
type Snapshot struct {
	// Clusters, sorted by name.
	Clusters []*ClusterInfo
	Latency  Latency
	// Traffic is, per workload key, the traffic each cluster receives (for
	// example requests per second); missing means none.
	Traffic map[string]map[string]float64
}
