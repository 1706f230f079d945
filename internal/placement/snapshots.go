package placement

import (
	"slices"
	"strings"
	"sync"
)

// Snapshots builds snapshots one after the other, deriving a cluster's free
// resources again only when its nodes changed, as kube-scheduler updates its
// node snapshot by generation. Each cluster comes with the generation of its
// nodes: a number that its source changes whenever the nodes change (their
// allocatable or requested resources, labels, taints, cordon, or the set of
// nodes), and that never comes back for other nodes. A cluster whose
// generation is the one of the previous snapshot shares the previous
// snapshot's per-node free resources instead of deriving them again.
//
// Sharing is copy-on-write: a snapshot that changes its free resources
// (ApplyAssumptions) copies them first, so no snapshot ever sees another's
// change and each may be read by any number of Place calls while later
// snapshots are built. A Snapshots is safe for concurrent use; its zero
// value is ready, and a nil *Snapshots shares nothing (NewSnapshot).
type Snapshots struct {
	mu sync.Mutex
	// last holds, per cluster name, what the previous snapshot derived from
	// the cluster's nodes, for a generation other than zero. Nothing in it
	// changes once stored.
	last map[string]*ClusterInfo
}

// New builds a snapshot as NewSnapshot does. generations are, indexed like
// clusters, the generations of their nodes; nil, or a zero, means unknown:
// the cluster is derived again.
func (b *Snapshots) New(clusters []Cluster, generations []uint64, latency Latency, traffic map[string]map[string]float64) *Snapshot {
	if b != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
	}
	infos := make([]ClusterInfo, len(clusters))
	s := &Snapshot{
		Clusters: make([]*ClusterInfo, len(clusters)),
		Latency:  latency,
		Traffic:  traffic,
		peak:     peakTraffic(traffic),
	}
	var next map[string]*ClusterInfo
	if b != nil {
		next = make(map[string]*ClusterInfo, len(clusters))
	}
	for i := range clusters {
		c := &infos[i]
		var gen uint64
		if generations != nil {
			gen = generations[i]
		}
		if prev := b.previous(&clusters[i], gen); prev != nil {
			*c = *prev
			c.Cluster = clusters[i]
		} else {
			c.Cluster = clusters[i]
			c.derive()
		}
		c.latency = latency
		if b != nil && gen != 0 {
			c.generation, c.shared = gen, true
			kept := *c
			next[c.Name] = &kept
		}
		s.Clusters[i] = c
	}
	if b != nil {
		b.last = next
	}
	slices.SortFunc(s.Clusters, func(a, b *ClusterInfo) int { return strings.Compare(a.Name, b.Name) })
	return s
}

// previous returns what the previous snapshot derived from c's nodes at
// generation gen, or nil.
func (b *Snapshots) previous(c *Cluster, gen uint64) *ClusterInfo {
	if b == nil || gen == 0 {
		return nil
	}
	prev := b.last[c.Name]
	if prev == nil || prev.generation != gen || len(prev.Nodes) != len(c.Nodes) {
		return nil
	}
	return prev
}

// derive computes the free resources of every node, then the flags and
// totals, from Nodes.
func (c *ClusterInfo) derive() {
	c.Free = make([]Resources, len(c.Nodes))
	for j := range c.Nodes {
		c.Free[j] = c.Nodes[j].Allocatable.Remaining(c.Nodes[j].Requested)
	}
	c.refresh()
}
