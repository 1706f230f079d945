package provision

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// scaleDown consolidates the cloud cluster, as Karpenter does: a ready
// node whose pods fit on the other ready nodes of the cloud cluster (and,
// in predictive mode, whose room the forecast does not need) is a
// candidate; one that stayed a candidate for the scale-down delay is
// removed. Empty nodes go together, a node with pods one per decision, so
// that its pods are placed again before the next one is drained.
func (p *Provisioner) scaleDown(o Observation) Decision {
	if len(o.Unschedulable) > 0 {
		clear(p.unneededSince)
		return Decision{Action: None}
	}
	// Least requested first, so that the emptiest nodes are the
	// candidates and the busiest take their pods.
	nodes := slices.Clone(o.Cloud.Nodes)
	slices.SortStableFunc(nodes, func(a, b NodeState) int {
		if c := cmp.Compare(a.Requested.MilliCPU, b.Requested.MilliCPU); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	// Nothing goes while nodes are coming, as Karpenter does not disrupt
	// while capacity it launched is not initialized: those nodes were
	// bought for pods that will need the room they see now.
	coming := slices.ContainsFunc(o.Cloud.Nodes, func(n NodeState) bool { return !n.Ready })
	removed := map[string]bool{}
	var remove []string
	nonEmpty := false
	for _, n := range nodes {
		if !n.Ready || !p.consolidatable(o, n, removed) {
			delete(p.unneededSince, n.Name)
			continue
		}
		since, ok := p.unneededSince[n.Name]
		if !ok {
			p.unneededSince[n.Name] = o.Now
			since = o.Now
		}
		if o.Now.Sub(since) < p.delay() || len(o.Cloud.Nodes)-len(remove) <= p.cfg.MinNodes || coming {
			continue
		}
		if len(n.Pods) > 0 {
			if nonEmpty {
				continue
			}
			nonEmpty = true
		}
		removed[n.Name] = true
		remove = append(remove, n.Name)
	}
	for name := range p.unneededSince {
		if removed[name] {
			delete(p.unneededSince, name)
		}
	}
	if len(remove) == 0 {
		return Decision{Action: None}
	}
	slices.Sort(remove)
	return Decision{Action: RemoveNodes, Remove: remove,
		Reason: fmt.Sprintf("pods fit on the other cloud nodes for %v", p.delay())}
}

// consolidatable reports whether n may go: its requests are below the
// scale-down utilization (an empty node always is), its pods fit on the
// other ready cloud nodes that stay, and, in predictive mode, the forecast
// replicas would still need no new node without it.
func (p *Provisioner) consolidatable(o Observation, n NodeState, removed map[string]bool) bool {
	util := max(float64(n.Requested.MilliCPU)/float64(n.Allocatable.MilliCPU),
		float64(n.Requested.Memory)/float64(n.Allocatable.Memory))
	if len(n.Pods) > 0 && util >= p.cfg.ScaleDownUtilization {
		return false
	}
	var stay []NodeState
	var bins []placement.Resources
	for _, m := range o.Cloud.Nodes {
		if m.Name != n.Name && !removed[m.Name] {
			stay = append(stay, m)
			if m.Ready {
				bins = append(bins, minus(m.Allocatable, m.Requested))
			}
		}
	}
	if !packInto(n.Pods, bins) {
		return false
	}
	if p.cfg.Mode != Predictive {
		return true
	}
	// The node's pods become unschedulable replicas to be placed on the
	// nodes that stay; the forecast must then need nothing new.
	without := o
	without.Unschedulable = append(slices.Clone(o.Unschedulable), n.Pods...)
	m, _, _ := p.shortage(without, p.cfg.NodeDelay, stay)
	return len(m.nodes) == 0
}

// delay is how long a node must stay a candidate before it goes. The
// scale-down delay is the reactive mode's only guard against the demand
// coming back. The predictive mode has a better one: a node is a candidate
// only while the forecast over the node delay needs no new node without
// it, so it waits only as long as a replacement would take to arrive (a
// node that stayed unneeded that long costs more kept than bought again,
// as in the ski-rental rule), and never longer than the scale-down delay.
func (p *Provisioner) delay() time.Duration {
	if p.cfg.Mode == Predictive {
		return min(p.cfg.NodeDelay, p.cfg.ScaleDownDelay)
	}
	return p.cfg.ScaleDownDelay
}
