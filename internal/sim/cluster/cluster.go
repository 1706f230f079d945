package cluster

import (
	"cmp"
	"slices"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Pod is one replica in a member cluster.
type Pod struct {
	// ID is unique within a simulation run.
	ID int64
	// Workload is the key of the workload the pod belongs to.
	Workload string
	// Requests is the pod's request, with Pods set to 1.
	Requests placement.Resources
	// Node is where the pod is bound, or nil while it is Pending.
	Node *Node
	// Cluster is the cluster the pod was created in.
	Cluster *Cluster
	// Data is the simulator's own bookkeeping for the pod.
	Data any
}

// Running reports whether the pod is bound to a node.
func (p *Pod) Running() bool { return p.Node != nil }

// Node is one worker node.
type Node struct {
	Name        string
	Allocatable placement.Resources
	// Requested sums the requests of the pods bound to the node.
	Requested placement.Resources
	Labels    map[string]string
	// Unschedulable mirrors a cordoned node: bound pods stay, new ones do
	// not come.
	Unschedulable bool
	pods          map[int64]*Pod
}

// NewNode returns an empty node.
func NewNode(name string, allocatable placement.Resources) *Node {
	return &Node{Name: name, Allocatable: allocatable, pods: map[int64]*Pod{}}
}

// Pods returns the pods bound to the node, oldest (lowest ID) first, so
// that whatever is done to them happens in a reproducible order.
func (n *Node) Pods() []*Pod {
	out := make([]*Pod, 0, len(n.pods))
	for _, p := range n.pods {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Pod) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// PodCount is how many pods are bound to the node.
func (n *Node) PodCount() int { return len(n.pods) }

// Fits reports whether r fits in the node's free resources.
func (n *Node) Fits(r placement.Resources) bool {
	return !n.Unschedulable && r.Fits(n.Allocatable.Sub(n.Requested))
}

// Scoring is the NodeResourcesFit scoring strategy of a cluster's
// kube-scheduler: how it ranks the nodes a pod fits on.
type Scoring string

// The scoring strategies.
const (
	// LeastAllocated prefers the node with the most free room after the
	// pod, spreading pods: kube-scheduler's default.
	LeastAllocated Scoring = "LeastAllocated"
	// MostAllocated prefers the node with the least free room after the
	// pod, packing pods so that nodes empty out and an autoscaler can
	// remove them: GKE's optimize-utilization profile.
	MostAllocated Scoring = "MostAllocated"
)

// score is kube-scheduler's score for placing r on the node under s: the
// mean over CPU and memory of the free (LeastAllocated) or requested
// (MostAllocated) fraction after the pod, in [0, 100].
func (n *Node) score(s Scoring, r placement.Resources) int64 {
	frac := func(req, alloc int64) int64 {
		if alloc == 0 {
			return 0
		}
		if s == MostAllocated {
			return req * 100 / alloc
		}
		return (alloc - req) * 100 / alloc
	}
	cpu := frac(n.Requested.MilliCPU+r.MilliCPU, n.Allocatable.MilliCPU)
	mem := frac(n.Requested.Memory+r.Memory, n.Allocatable.Memory)
	return (cpu + mem) / 2
}

// Cluster is one member cluster: its nodes, its bound pods and its queue of
// Pending pods.
type Cluster struct {
	Name  string
	Nodes []*Node
	// Scoring is how the scheduler ranks nodes; empty means
	// LeastAllocated.
	Scoring Scoring
	// OnBind, when set, is called for every pod the scheduler binds.
	OnBind  func(*Pod)
	pending []*Pod
	// assigned sums the requests of every pod in the cluster, bound or
	// Pending.
	assigned placement.Resources
	pods     int
}

// New returns a cluster with the given nodes.
func New(name string, nodes ...*Node) *Cluster {
	return &Cluster{Name: name, Nodes: nodes}
}

// Pending returns the Pending pods, oldest first.
func (c *Cluster) Pending() []*Pod { return c.pending }

// PodCount is the number of pods in the cluster, bound or Pending.
func (c *Cluster) PodCount() int { return c.pods }

// Assigned is the sum of the requests of every pod in the cluster, bound
// or Pending: what seed 001 calls the CPU allocation's numerator.
func (c *Cluster) Assigned() placement.Resources { return c.assigned }

// Allocatable sums the allocatable resources of the nodes.
func (c *Cluster) Allocatable() placement.Resources {
	var r placement.Resources
	for _, n := range c.Nodes {
		r = r.Add(n.Allocatable)
	}
	return r
}

// Requested sums the requests of the bound pods.
func (c *Cluster) Requested() placement.Resources {
	var r placement.Resources
	for _, n := range c.Nodes {
		r = r.Add(n.Requested)
	}
	return r
}

// Node returns the node with the given name, or nil.
func (c *Cluster) Node(name string) *Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}
