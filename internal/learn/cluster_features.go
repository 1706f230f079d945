package learn

import "math"

// ClusterState is one member cluster as the cluster scorer sees it, for one
// workload, in physical units: what a placement snapshot holds.
type ClusterState struct {
	// AllocatableMilliCPU, AllocatableMemory (bytes) and AllocatablePods sum
	// the schedulable nodes; Requested* what their pods request.
	AllocatableMilliCPU, RequestedMilliCPU int64
	AllocatableMemory, RequestedMemory     int64
	AllocatablePods, RequestedPods         int64
	Nodes                                  int
	// LargestFreeMilliCPU and LargestFreeMemory are the most CPU and memory
	// free on one node.
	LargestFreeMilliCPU, LargestFreeMemory int64
	// Cloud marks a cloud (burst) cluster.
	Cloud bool
	// CPUHourPrice is what a core costs per hour there (zero on-premises).
	CPUHourPrice float64
	// LatencyMs is the round-trip time from the workload's users (its
	// latency origin or first location) to the cluster; zero when the
	// workload has none.
	LatencyMs float64
	// Fit is how many replicas of the workload the cluster holds now,
	// counted node by node (placement.ClusterInfo.FitCount).
	Fit int64
}

// WorkloadState is the workload to place: one replica's request and how
// many replicas are to be placed.
type WorkloadState struct {
	MilliCPU int64
	// Memory is in bytes.
	Memory   int64
	Replicas int32
}

// Feasible reports whether the cluster can take a replica of the workload:
// the cluster mask.
func (c *ClusterState) Feasible() bool { return c.Fit > 0 }

// ClusterSchemaVersion names the cluster feature encoding below; a cluster
// model file records it with the column names, and LoadClusterModel
// refuses another.
const ClusterSchemaVersion = "meridian.learn.cluster-features/v1"

// The scales that bring the cluster features near [0, 1].
const (
	clusterCPUScale  = 128000.0  // millicores: 128 cores
	clusterMemScale  = 512 << 30 // bytes: 512 GiB
	clusterPodsScale = 1100.0    // ten nodes of kubelet's default
	clusterNodeScale = 32.0
	cpuPriceScale    = 0.1 // per core-hour, a public cloud's order
	fitCap           = 2.0
	replicasScale    = 100.0
	workloadCPUScale = 64000.0 // millicores
)

// ClusterColumns are the cluster features of a row, in order. There are as
// many as NodeColumns at most, so that learn.Train's replay, which keeps
// len(NodeColumns) values per row, holds a cluster row (see
// TrainClusterModel).
var ClusterColumns = []string{
	"free_cpu_per_128_cores",
	"free_memory_per_512_gib",
	"free_pods_per_1100",
	"cpu_requested_fraction",
	"memory_requested_fraction",
	"pods_requested_fraction",
	"nodes_per_32",
	"largest_free_node_cpu_per_64_cores",
	"largest_free_node_memory_per_256_gib",
	"cloud",
	"cpu_price_per_core_hour_per_0.1",
	"latency_to_users_per_100_ms",
	"replicas_that_fit_over_wanted_capped_at_2",
}

// WorkloadColumns are the workload features, the same in every row.
var WorkloadColumns = []string{
	"replica_cpu_per_8_cores",
	"replica_memory_per_32_gib",
	"replicas_per_100",
	"workload_cpu_per_64_cores",
}

// EncodeCluster writes the cluster columns of c for w into row
// (len(ClusterColumns)).
func EncodeCluster(row []float64, c *ClusterState, w *WorkloadState) {
	row = row[:len(ClusterColumns)]
	row[0] = float64(c.AllocatableMilliCPU-c.RequestedMilliCPU) / clusterCPUScale
	row[1] = float64(c.AllocatableMemory-c.RequestedMemory) / clusterMemScale
	row[2] = float64(c.AllocatablePods-c.RequestedPods) / clusterPodsScale
	row[3] = frac(c.RequestedMilliCPU, c.AllocatableMilliCPU)
	row[4] = frac(c.RequestedMemory, c.AllocatableMemory)
	row[5] = frac(c.RequestedPods, c.AllocatablePods)
	row[6] = float64(c.Nodes) / clusterNodeScale
	row[7] = float64(c.LargestFreeMilliCPU) / cpuScale
	row[8] = float64(c.LargestFreeMemory) / memScale
	row[9] = 0
	if c.Cloud {
		row[9] = 1
	}
	row[10] = c.CPUHourPrice / cpuPriceScale
	row[11] = c.LatencyMs / latencyScale
	row[12] = math.Min(float64(c.Fit)/float64(max(w.Replicas, 1)), fitCap)
}

// EncodeWorkload writes the workload columns of w into out
// (len(WorkloadColumns)).
func EncodeWorkload(out []float64, w *WorkloadState) {
	out = out[:len(WorkloadColumns)]
	out[0] = float64(w.MilliCPU) / podCPUScale
	out[1] = float64(w.Memory) / podMemScale
	out[2] = float64(w.Replicas) / replicasScale
	out[3] = float64(w.MilliCPU) * float64(w.Replicas) / workloadCPUScale
}
