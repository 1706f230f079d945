package provision

import (
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Workload is one multi-cluster workload (a MultiClusterDeployment or a
// MultiClusterJob) as the provisioner counts it.
type Workload struct {
	// Requests are one replica's.
	Requests placement.Resources
	// Asked is how many replicas the workload asks for now (for a job, the
	// completions not done yet, at most its parallelism).
	Asked int32
	// Unplaced is how many of them no member cluster holds.
	Unplaced int32
	// Overflows is true when the workload's replicas may go beyond the
	// clusters it prefers (substitution or bursting), and so to a cloud
	// cluster: only those replicas buy cloud capacity.
	Overflows bool
}

// WorkloadOf is how the provisioner counts w, as workload.New made it from
// its object's spec: its replicas overflow to a cloud cluster when its
// own spec allows substitution or bursting. asked and unplaced are as in
// Workload.
func WorkloadOf(w *placement.Workload, asked, unplaced int32) Workload {
	return Workload{Requests: w.PodRequests, Asked: asked, Unplaced: unplaced, Overflows: w.Substitution || w.Bursting}
}

// Member is a member cluster that is not a cloud cluster.
type Member struct {
	// Ready is false while the member is unreachable; its capacity is not
	// counted.
	Ready bool
	// Nodes are its nodes; cordoned ones are not counted.
	Nodes []placement.Node
}

// Input is everything the provisioner observes, read by the
// CloudProvisioner controller from the API servers and by the simulator
// from its model.
type Input struct {
	Now       time.Time
	Workloads []Workload
	Members   []Member
	// Cloud is nil when there is no cloud cluster; its nodes include the
	// ones asked for and not registered yet.
	Cloud *Cloud
	// CloudPending are the requests of the pods Pending as Unschedulable
	// in the cloud cluster.
	CloudPending []placement.Resources
}

// Observe turns what was read into the provisioner's Observation. It is the
// one place that says what counts: every workload's asked replicas are
// demand; the unplaced replicas of the workloads that may overflow, and the
// pods Pending in the cloud cluster, are unschedulable; the schedulable
// nodes of the ready members are capacity.
func Observe(in Input) Observation {
	o := Observation{Now: in.Now, Cloud: in.Cloud}
	for _, w := range in.Workloads {
		n := int64(max(w.Asked, 0))
		o.Demand.MilliCPU += n * w.Requests.MilliCPU
		o.Demand.Memory += n * w.Requests.Memory
		o.Demand.Pods += n
		if !w.Overflows {
			continue
		}
		if n > 0 {
			o.Sizes = append(o.Sizes, Size{Requests: w.Requests, Count: n})
		}
		for range w.Unplaced {
			o.Unschedulable = append(o.Unschedulable, w.Requests)
		}
	}
	for _, m := range in.Members {
		if !m.Ready {
			continue
		}
		for _, n := range m.Nodes {
			if n.Unschedulable {
				continue
			}
			o.Capacity = o.Capacity.Add(n.Allocatable)
			if free := n.Allocatable.Sub(n.Requested); free.MilliCPU > 0 && free.Memory > 0 && free.Pods > 0 {
				o.Free = append(o.Free, free)
			}
		}
	}
	o.Sizes = merge(o.Sizes)
	if in.Cloud != nil {
		o.Unschedulable = append(o.Unschedulable, in.CloudPending...)
	}
	return o
}

// merge sorts sizes smallest first and adds up the counts of equal ones.
func merge(sizes []Size) []Size {
	slices.SortStableFunc(sizes, func(a, b Size) int {
		switch {
		case larger(b.Requests, a.Requests):
			return -1
		case larger(a.Requests, b.Requests):
			return 1
		}
		return 0
	})
	out := sizes[:0]
	for _, s := range sizes {
		if k := len(out) - 1; k >= 0 && sameSize(out[k].Requests, s.Requests) {
			out[k].Count += s.Count
			continue
		}
		out = append(out, s)
	}
	return out
}

// larger orders requests by CPU, then memory.
func larger(a, b placement.Resources) bool {
	if a.MilliCPU != b.MilliCPU {
		return a.MilliCPU > b.MilliCPU
	}
	return a.Memory > b.Memory
}

// sameSize compares the resources the provisioner packs.
func sameSize(a, b placement.Resources) bool {
	return a.MilliCPU == b.MilliCPU && a.Memory == b.Memory && a.Pods == b.Pods
}
