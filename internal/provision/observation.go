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
	Name        string
	Allocatable placement.Resources
	Requested   placement.Resources
	// Ready is false while the node is being added.
	Ready bool
	// Pods are the requests of the pods bound to the node.
	Pods []placement.Resources
}

// Cloud is the state of the cloud cluster.
type Cloud struct {
	Phase  Phase
	Flavor string
	Nodes  []NodeState
	// Workloads is how many workloads have replicas in the cloud cluster.
	Workloads int
}

// Observation is what the provisioner reads at one decision.
type Observation struct {
	Now time.Time
	// Capacity sums the allocatable resources of the member clusters that
	// are not cloud clusters.
	Capacity placement.Resources
	// Demand sums the requests of every replica asked for, placed or not.
	Demand placement.Resources
	// Unschedulable are the requests of the replicas that fit nowhere now:
	// unplaced, or Pending in the cloud cluster.
	Unschedulable []placement.Resources
	// Cloud is nil when there is no cloud cluster.
	Cloud *Cloud
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

// Decision is the provisioner's answer.
type Decision struct {
	Action Action
	// Flavor and Nodes are the new nodes for ProvisionCluster and AddNodes.
	Flavor string
	Nodes  int
	// Remove names the nodes for RemoveNodes.
	Remove []string
	// Reason explains the decision in words.
	Reason string
}
