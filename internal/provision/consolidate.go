package provision

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// scaleDown consolidates the cloud cluster, as Karpenter does: a Ready
// node whose pods fit on the other Ready nodes of the cloud cluster (and,
// in predictive mode, whose room the forecast does not need) is a
// candidate; one that stayed a candidate for the scale-down delay goes. A
// node of a flavor no longer configured (retired) goes as soon as its
// pods fit elsewhere, whatever its use and MinNodes. Empty nodes are
// removed together; a node with pods is drained first (Decision.Drain),
// one at a time, so that its pods are placed again before the next one:
// while a drain runs, the others keep their wait.
func (p *Provisioner) scaleDown(o Observation, conds map[string]NodeCondition) Decision {
	if len(o.Unschedulable) > 0 {
		clear(p.unneededSince)
		return Decision{Action: None}
	}
	// Least requested first, so that the emptiest nodes are the
	// candidates and the busiest take their pods. In predictive mode, which
	// also drains busy nodes, the node with the most free room comes first:
	// of two nodes that could each take the other's pods, the larger one
	// (paid for the room it leaves empty) goes, not the one that happens to
	// hold less.
	nodes := slices.Clone(o.Cloud.Nodes)
	slices.SortStableFunc(nodes, func(a, b NodeState) int {
		if p.cfg.Mode == Predictive {
			if c := cmp.Compare(b.Allocatable.MilliCPU-b.Requested.MilliCPU, a.Allocatable.MilliCPU-a.Requested.MilliCPU); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(a.Requested.MilliCPU, b.Requested.MilliCPU); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	// Nothing goes while nodes are coming, as Karpenter does not disrupt
	// while capacity it launched is not initialized: those nodes were
	// bought for pods that will need the room they see now.
	coming := slices.ContainsFunc(o.Cloud.Nodes, func(n NodeState) bool { return conds[n.Name] == NodeComing })
	draining := slices.ContainsFunc(o.Cloud.Nodes, func(n NodeState) bool { return n.Draining })
	live := len(p.usable(o, conds))
	removed := map[string]bool{}
	var remove, drain []string
	retiredOnly, gone := true, 0
	for _, n := range nodes {
		retired := p.retired(n)
		if conds[n.Name] != NodeReady || !p.consolidatable(o, n, removed, conds, retired) {
			delete(p.unneededSince, n.Name)
			continue
		}
		if !retired {
			since, ok := p.unneededSince[n.Name]
			if !ok {
				p.unneededSince[n.Name] = o.Now
				since = o.Now
			}
			if o.Now.Sub(since) < p.delay() || live-gone <= p.cfg.MinNodes {
				continue
			}
		}
		if coming {
			continue
		}
		if len(n.Pods) > 0 {
			if draining || len(drain) > 0 {
				// One drain at a time: the node keeps its wait.
				continue
			}
			drain = append(drain, n.Name)
		} else {
			remove = append(remove, n.Name)
		}
		removed[n.Name] = true
		if !retired {
			gone++
			retiredOnly = false
		}
	}
	// Forget the waits of nodes that go now or are gone, with one set of
	// names rather than a search of the nodes per wait.
	present := make(map[string]bool, len(o.Cloud.Nodes))
	for _, n := range o.Cloud.Nodes {
		present[n.Name] = true
	}
	for name := range p.unneededSince {
		if removed[name] || !present[name] {
			delete(p.unneededSince, name)
		}
	}
	if len(remove) == 0 && len(drain) == 0 {
		return Decision{Action: None}
	}
	slices.Sort(remove)
	reason := fmt.Sprintf("pods fit on the other cloud nodes for %v", p.delay())
	if retiredOnly {
		reason = "flavor no longer in the flavors: its pods fit on the other cloud nodes"
	}
	return Decision{Action: RemoveNodes, Remove: remove, Drain: drain, Reason: reason}
}

// consolidatable reports whether n may go: its pods fit on the other
// Ready cloud nodes that stay and, unless n is retired, its requests are
// below the scale-down utilization (an empty node always is; in predictive
// mode, any node while the demand is settled) and, in predictive mode, the
// forecast replicas would still need no new node without it.
func (p *Provisioner) consolidatable(o Observation, n NodeState, removed map[string]bool, conds map[string]NodeCondition, retired bool) bool {
	util := max(float64(n.Requested.MilliCPU)/float64(n.Allocatable.MilliCPU),
		float64(n.Requested.Memory)/float64(n.Allocatable.Memory))
	if !retired && len(n.Pods) > 0 && util >= p.cfg.ScaleDownUtilization && !p.settled(o) {
		return false
	}
	var stay []NodeState
	var bins []placement.Resources
	for _, m := range p.usable(o, conds) {
		if m.Name != n.Name && !removed[m.Name] {
			stay = append(stay, m)
			if conds[m.Name] == NodeReady {
				bins = append(bins, m.Allocatable.Sub(m.Requested))
			}
		}
	}
	if !packInto(n.Pods, bins) {
		return false
	}
	if retired || p.cfg.Mode != Predictive {
		return true
	}
	// The node's pods become unschedulable replicas to be placed on the
	// nodes that stay; the forecast must then need nothing new.
	without := o
	without.Unschedulable = append(slices.Clone(o.Unschedulable), n.Pods...)
	m, _, _ := p.shortage(without, forNodes, stay)
	return len(m.nodes) == 0
}

// settled reports whether, in predictive mode, the forecast expects no
// rise over the node delay. The scale-down utilization is Algorithm 4's
// guess that a busy node will be needed again; while the demand rises the
// predictive mode keeps that guard (a drain's pods need room at the moment
// bursts need it), and once the demand is settled it consolidates as
// Karpenter does, whatever a node's use: a node whose pods fit on the
// others is paid for and holds nothing the others could not. Not while
// the demand rises: a drained node's pods would take the room that the
// next burst needs, and runs that dropped the guard then went above 1 %
// pending (docs/design/20261123-predictive-cost.md).
func (p *Provisioner) settled(o Observation) bool {
	return p.cfg.Mode == Predictive && len(p.expected(o, forNodes)) == 0
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
