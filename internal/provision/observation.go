package provision

import (
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Phase is where a cloud cluster is in its life.
type Phase string

// The phases of a cloud cluster.
const (
	// Provisioning means the cluster was asked for and is not usable yet.
	Provisioning Phase = "Provisioning"
	// Ready means the cluster takes workloads.
	Ready Phase = "Ready"
)

// NodeState is one node of the cloud cluster.
type NodeState struct {
	Name string
	// Flavor names the node pool the node belongs to.
	Flavor      string
	Allocatable placement.Resources
	Requested   placement.Resources
	// Ready is false while the node is being added.
	Ready bool
	// Pods are the requests of the pods bound to the node.
	Pods []placement.Resources
}

// Cloud is the state of the cloud cluster.
type Cloud struct {
	Phase Phase
	// Nodes are the nodes of every pool, ready or coming.
	Nodes []NodeState
	// Workloads is how many workloads have replicas in the cloud cluster.
	Workloads int
}

// Observation is what the provisioner reads at one decision. Observe
// builds it from what the controller or the simulator sees.
type Observation struct {
	Now time.Time
	// Capacity sums the allocatable resources of the member clusters that
	// are not cloud clusters.
	Capacity placement.Resources
	// Free is the free space of each schedulable node of those members,
	// where the predictive mode expects the forecast demand to go first.
	Free []placement.Resources
	// Demand sums the requests of every replica asked for, placed or not;
	// Demand.Pods counts the replicas.
	Demand placement.Resources
	// Sizes are the requests of the replicas asked for of the workloads
	// that may overflow, with how many ask for each, smallest first: what
	// the predictive mode expects new replicas to look like.
	Sizes []Size
	// Unschedulable are the requests of the replicas that fit nowhere now:
	// unplaced, or Pending in the cloud cluster.
	Unschedulable []placement.Resources
	// Cloud is nil when there is no cloud cluster.
	Cloud *Cloud
}

// Size is a request and how many replicas ask for it.
type Size struct {
	Requests placement.Resources
	Count    int64
}

// largest is the largest of the sizes.
func largestSize(sizes []Size) placement.Resources {
	if len(sizes) == 0 {
		return placement.Resources{}
	}
	return sizes[len(sizes)-1].Requests
}

// Action is what the provisioner asks for.
type Action string

// The provisioner's actions.
const (
	None             Action = "None"
	ProvisionCluster Action = "ProvisionCluster"
	AddNodes         Action = "AddNodes"
	RemoveNodes      Action = "RemoveNodes"
	RemoveCluster    Action = "RemoveCluster"
)

// NodeGroup is a number of new nodes of one flavor.
type NodeGroup struct {
	Flavor string
	Nodes  int
}

// Decision is the provisioner's answer.
type Decision struct {
	Action Action
	// Add are the new nodes for ProvisionCluster and AddNodes, one group
	// per flavor, in the order of the configuration's flavors.
	Add []NodeGroup
	// Remove names the nodes for RemoveNodes.
	Remove []string
	// Reason explains the decision in words.
	Reason string
}

// Nodes is how many nodes d adds.
func (d Decision) Nodes() int {
	n := 0
	for _, g := range d.Add {
		n += g.Nodes
	}
	return n
}
