package provision

import (
	"fmt"
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
	// Unreachable means the cluster was Ready and is not now: its member
	// turned NotReady or cannot be read. What it holds cannot be seen, so
	// nothing is decided, and nothing remembered of its nodes forgotten,
	// until it is back.
	Unreachable Phase = "Unreachable"
)

// NodeState is one node of the cloud cluster, as it was read: the
// provisioner tells from it which condition the node is in (Condition).
type NodeState struct {
	Name string
	// Flavor names the node pool the node belongs to. A flavor that is no
	// longer configured makes the node retired: it is drained and removed.
	Flavor      string
	Allocatable placement.Resources
	Requested   placement.Resources
	// Ready is true while the kubelet reports the node Ready.
	Ready bool
	// Cordoned is true when the node is unschedulable: drained, or
	// cordoned by someone.
	Cordoned bool
	// Draining is true while the node is drained for the provisioner (it
	// is cordoned too); at most one node with pods is drained at a time.
	Draining bool
	// Created is when the node registered; zero for a node asked of the
	// backend that has not registered yet, which is coming until it does.
	Created time.Time
	// Pods are the requests of the pods bound to the node that a drain
	// would move (MovesPod): not DaemonSet or mirror pods, not finished.
	Pods []placement.Resources
}

// NodeCondition is what a cloud node is good for now.
type NodeCondition string

// The conditions of a cloud node.
const (
	// NodeReady takes pods: Ready and schedulable. Only its free room is
	// counted as free.
	NodeReady NodeCondition = "Ready"
	// NodeComing is joining: asked for and not registered yet, or
	// registered less than the join grace ago and never Ready since. Its
	// room is counted as coming, and nothing is consolidated meanwhile.
	NodeComing NodeCondition = "Coming"
	// NodeCordoned is Ready and unschedulable (drained, or cordoned by
	// someone): its room is not counted and it is not consolidated.
	NodeCordoned NodeCondition = "Cordoned"
	// NodeNotReady is broken: not Ready after it was, or never Ready
	// within the join grace. Its room is not counted; it is removed once
	// it stayed so for the not-ready grace, and the pods it held buy a
	// replacement if they fit nowhere else.
	NodeNotReady NodeCondition = "NotReady"
)

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
	// Remove names the nodes for RemoveNodes to remove now: nodes without
	// pods, and broken ones.
	Remove []string
	// Drain names, for RemoveNodes, the node with pods to cordon and drain
	// first (NextDrainStep); it is removed once empty. At most one node is
	// drained at a time.
	Drain []string
	// Reason explains the decision in words.
	Reason string
	// Trend is what the predictive mode forecasts of the demand over the
	// node delay; empty in reactive mode, which forecasts nothing, and
	// until the history spans half the trend window (after a restart too).
	Trend Trend
}

// Trend is the predictive mode's forecast of the demand.
type Trend string

const (
	// Rising: the forecast expects more replicas over the node delay than
	// the cloud and the members hold room for now.
	Rising Trend = "Rising"
	// Settled: the forecast expects no rise over the node delay, so room
	// that replicas leave need not be kept for bursts: the predictive mode
	// then consolidates busy nodes, and the re-scheduler moves replicas out
	// of the cloud cluster to any member cluster with room.
	Settled Trend = "Settled"
)

// Groups puts new nodes in words, one group per node pool: "1 node in
// pool m1.large", "2 nodes in pool m1.large and 1 node in pool m1.xlarge".
// A pool is named after its flavor, which may be any name (the one pool of
// a cloud cluster made before node pools is "0"), so the name always comes
// after the word pool and never reads as a count.
func Groups(gs []NodeGroup) string {
	s := ""
	for i, g := range gs {
		switch {
		case i == 0:
		case i == len(gs)-1:
			s += " and "
		default:
			s += ", "
		}
		nodes := "nodes"
		if g.Nodes == 1 {
			nodes = "node"
		}
		s += fmt.Sprintf("%d %s in pool %s", g.Nodes, nodes, g.Flavor)
	}
	if s == "" {
		return "no nodes"
	}
	return s
}

// Nodes is how many nodes d adds.
func (d Decision) Nodes() int {
	n := 0
	for _, g := range d.Add {
		n += g.Nodes
	}
	return n
}
