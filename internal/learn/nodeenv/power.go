package nodeenv

import "math"

// PowerModel is the electrical power of one node type as a function of its
// CPU utilisation.
//
// The per-vCPU watts are Cloud Carbon Footprint's coefficients for the
// micro-architecture (github.com/cloud-carbon-footprint/ccf-coefficients,
// computed from the SPECpower_ssj2008 results: the average power at active
// idle and at 100 % target load, per hardware thread), and memory draws
// CCF's 0.392 W per GB whenever the node is on. Between idle and peak the
// curve is Fan, Weber and Barroso's (ISCA 2007, "Power provisioning for a
// warehouse-sized computer"), P(u) = idle + (peak - idle)(2u - u^1.4),
// fitted on Google's servers: power rises faster than linearly at low load.
// A node without pods is off (0 W): the seed counts a node as active when it
// runs a pod, and consolidation switches empty nodes off.
type PowerModel struct {
	Name string
	// VCPUs and MemoryGiB are the node's allocatable capacity.
	VCPUs     int64
	MemoryGiB int64
	// IdleWatts and PeakWatts are the power at 0 % and 100 % CPU while on.
	IdleWatts, PeakWatts float64
}

const memoryWattsPerGB = 0.392

func newType(name string, vcpus, memGiB int64, minPerVCPU, maxPerVCPU float64) PowerModel {
	mem := memoryWattsPerGB * float64(memGiB) * 1.073741824 // GiB to GB
	return PowerModel{Name: name, VCPUs: vcpus, MemoryGiB: memGiB,
		IdleWatts: minPerVCPU*float64(vcpus) + mem, PeakWatts: maxPerVCPU*float64(vcpus) + mem}
}

// NodeTypes are the node types of the simulated clusters, with CCF's
// per-vCPU coefficients: Haswell 1.90-5.99 W, Cascade Lake 0.64-3.80 W,
// AMD EPYC Milan 0.45-1.87 W.
var NodeTypes = []PowerModel{
	newType("haswell-16", 16, 64, 1.90, 5.99),
	newType("cascadelake-32", 32, 128, 0.64, 3.80),
	newType("milan-64", 64, 256, 0.45, 1.87),
}

// Watts is the power at CPU utilisation u in [0, 1] of a node that is on.
func (p PowerModel) Watts(u float64) float64 {
	u = math.Min(math.Max(u, 0), 1)
	return p.IdleWatts + (p.PeakWatts-p.IdleWatts)*(2*u-math.Pow(u, 1.4))
}
