package learn

import (
	"math"

	"github.com/meridian-dev/meridian/internal/placement"
)

// NodeState is one node as a scorer sees it, in physical units: what a
// kube-scheduler NodeInfo, an extender's node cache or the simulator holds.
type NodeState struct {
	AllocatableMilliCPU, RequestedMilliCPU int64
	// AllocatableMemory and RequestedMemory are in bytes.
	AllocatableMemory, RequestedMemory int64
	AllocatablePods, RequestedPods     int64
	// LatencyMs is the node's latency to the pod's users, in milliseconds.
	LatencyMs float64
	// IdleWatts and PeakWatts are the node's power at 0 % and 100 % CPU
	// (see nodeenv.PowerModel); they come from its instance type.
	IdleWatts, PeakWatts float64
}

// Active reports whether the node runs at least one pod.
func (n *NodeState) Active() bool { return n.RequestedPods > 0 }

// PodState is the pod to place.
type PodState struct {
	MilliCPU int64
	// Memory is in bytes.
	Memory int64
	// SoftLatencyMs and HardLatencyMs are the pod's latency limits in
	// milliseconds; zero or less means no limit.
	SoftLatencyMs, HardLatencyMs float64
}

// Fits reports whether the pod fits in the node's free CPU, memory and pod
// slots: kube-scheduler's NodeResourcesFit filter for these resources.
func (p *PodState) Fits(n *NodeState) bool {
	return placement.Resources{MilliCPU: p.MilliCPU, Memory: p.Memory, Pods: 1}.Fits(n.Free())
}

// Free is what the node has left for pods.
func (n *NodeState) Free() placement.Resources {
	return placement.Resources{
		MilliCPU: n.AllocatableMilliCPU - n.RequestedMilliCPU,
		Memory:   n.AllocatableMemory - n.RequestedMemory,
		Pods:     n.AllocatablePods - n.RequestedPods,
	}
}

// Feasible reports whether the node may take the pod: it fits, and its
// latency is within the pod's hard limit. It is the action mask.
func (p *PodState) Feasible(n *NodeState) bool {
	return p.Fits(n) && (p.HardLatencyMs <= 0 || n.LatencyMs <= p.HardLatencyMs)
}

// SchemaVersion names the feature encoding below; a model file records it
// with the column names, and Load refuses another.
const SchemaVersion = "meridian.learn.features/v1"

// The scales that bring the features near [0, 1].
const (
	cpuScale     = 64000.0   // millicores: a 64-core node
	memScale     = 256 << 30 // bytes: 256 GiB
	podsScale    = 110.0     // kubelet's default max pods
	latencyScale = 100.0     // ms
	wattScale    = 200.0     // W
	podCPUScale  = 8000.0    // millicores
	podMemScale  = 32 << 30  // bytes
	noLimitMs    = 200.0     // a missing limit encodes as this
)

// NodeColumns are the node features of a row, in order.
var NodeColumns = []string{
	"free_cpu_per_64_cores",
	"free_memory_per_256_gib",
	"free_pods_per_110",
	"cpu_requested_fraction",
	"memory_requested_fraction",
	"pods_requested_fraction",
	"cpu_fraction_with_pod",
	"memory_fraction_with_pod",
	"active",
	"latency_per_100_ms",
	"latency_over_soft_limit_per_soft_to_hard",
	"idle_watts_per_200",
	"peak_watts_per_200",
}

// PodColumns are the pod features, the same in every row, in order.
var PodColumns = []string{
	"pod_cpu_per_8_cores",
	"pod_memory_per_32_gib",
	"soft_latency_limit_per_100_ms",
	"hard_latency_limit_per_100_ms",
}

func frac(a, b int64) float64 {
	if b <= 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func limitOrNone(ms float64) float64 {
	if ms <= 0 {
		return noLimitMs
	}
	return min(ms, noLimitMs)
}

// EncodeNode writes the node columns of n for pod p into row
// (len(NodeColumns)).
func EncodeNode(row []float64, n *NodeState, p *PodState) {
	row = row[:len(NodeColumns)]
	row[0] = float64(n.AllocatableMilliCPU-n.RequestedMilliCPU) / cpuScale
	row[1] = float64(n.AllocatableMemory-n.RequestedMemory) / memScale
	row[2] = float64(n.AllocatablePods-n.RequestedPods) / podsScale
	row[3] = frac(n.RequestedMilliCPU, n.AllocatableMilliCPU)
	row[4] = frac(n.RequestedMemory, n.AllocatableMemory)
	row[5] = frac(n.RequestedPods, n.AllocatablePods)
	row[8] = 0
	if n.Active() {
		row[8] = 1
	}
	row[9] = n.LatencyMs / latencyScale
	row[11] = n.IdleWatts / wattScale
	row[12] = n.PeakWatts / wattScale
	row[colCPUWithPod], row[colMemoryWithPod], row[colOverSoft] = encodeWithPod(n, p)
}

// The node columns that depend on the pod as well as the node: a
// CachedScorer keeps the others between pods.
const (
	colCPUWithPod    = 6
	colMemoryWithPod = 7
	colOverSoft      = 10
)

// encodeWithPod returns the node columns that depend on the pod.
func encodeWithPod(n *NodeState, p *PodState) (cpu, mem, overSoft float64) {
	cpu = min(frac(n.RequestedMilliCPU+p.MilliCPU, n.AllocatableMilliCPU), 2)
	mem = min(frac(n.RequestedMemory+p.Memory, n.AllocatableMemory), 2)
	if p.SoftLatencyMs > 0 && n.LatencyMs > p.SoftLatencyMs {
		span := limitOrNone(p.HardLatencyMs) - p.SoftLatencyMs
		overSoft = math.Min((n.LatencyMs-p.SoftLatencyMs)/math.Max(span, 1), 2)
	}
	return cpu, mem, overSoft
}

// EncodePod writes the pod columns of p into out (len(PodColumns)).
func EncodePod(out []float64, p *PodState) {
	out = out[:len(PodColumns)]
	out[0] = float64(p.MilliCPU) / podCPUScale
	out[1] = float64(p.Memory) / podMemScale
	out[2] = limitOrNone(p.SoftLatencyMs) / latencyScale
	out[3] = limitOrNone(p.HardLatencyMs) / latencyScale
}
