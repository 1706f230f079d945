package provision

import (
	"fmt"
	"slices"
	"time"
)

// conditions tells the condition of every cloud node of o (Condition) and
// updates what the provisioner remembers of them: which were seen Ready,
// since when broken ones are broken. Nodes that are gone are forgotten.
func (p *Provisioner) conditions(o Observation) map[string]NodeCondition {
	out := map[string]NodeCondition{}
	if o.Cloud == nil {
		clear(p.seenReady)
		clear(p.notReadySince)
		return out
	}
	for _, n := range o.Cloud.Nodes {
		c := p.condition(n, o.Now)
		out[n.Name] = c
		switch {
		case n.Ready:
			p.seenReady[n.Name] = true
			delete(p.notReadySince, n.Name)
		case c == NodeNotReady:
			if _, ok := p.notReadySince[n.Name]; !ok {
				// From when it is first seen NotReady, never back-dated:
				// after a restart a node that broke a moment ago must not
				// look broken since its join grace ran out long before.
				p.notReadySince[n.Name] = o.Now
			}
		}
	}
	for name := range p.seenReady {
		if _, ok := out[name]; !ok {
			delete(p.seenReady, name)
		}
	}
	for name := range p.notReadySince {
		if _, ok := out[name]; !ok {
			delete(p.notReadySince, name)
		}
	}
	return out
}

// condition is n's condition at now. A node that turned NotReady after it
// was seen Ready is broken at once; one that never was is coming for the
// join grace after it registered. After a restart the provisioner has not
// seen any node Ready, so a node that broke young counts as coming until
// its join grace ends: a restart delays a removal, it never hastens one.
func (p *Provisioner) condition(n NodeState, now time.Time) NodeCondition {
	switch {
	case n.Ready && n.Cordoned:
		return NodeCordoned
	case n.Ready:
		return NodeReady
	case n.Created.IsZero():
		return NodeComing
	case !p.seenReady[n.Name] && now.Sub(n.Created) < p.cfg.joinGrace():
		return NodeComing
	default:
		return NodeNotReady
	}
}

// removeBroken removes the nodes that stayed NotReady for the not-ready
// grace, as the cluster autoscaler removes unready nodes: their pods are
// gone or will be created again elsewhere (Kubernetes evicts the pods of
// a NotReady node), so the node is only paid for. It is not drained: a
// kubelet that does not answer cannot evict. What its pods need is
// bought again by scaleUp, which never counts a broken node's room.
func (p *Provisioner) removeBroken(o Observation, conds map[string]NodeCondition) Decision {
	var remove []string
	for _, n := range o.Cloud.Nodes {
		if conds[n.Name] != NodeNotReady {
			continue
		}
		if o.Now.Sub(p.notReadySince[n.Name]) >= p.cfg.notReadyGrace() {
			remove = append(remove, n.Name)
		}
	}
	if len(remove) == 0 {
		return Decision{Action: None}
	}
	slices.Sort(remove)
	return Decision{Action: RemoveNodes, Remove: remove,
		Reason: fmt.Sprintf("NotReady for %v: removed, and replaced if its pods fit nowhere else", p.cfg.notReadyGrace())}
}

// usable are the nodes whose room counts: Ready ones and coming ones of a
// configured flavor.
func (p *Provisioner) usable(o Observation, conds map[string]NodeCondition) []NodeState {
	var out []NodeState
	for _, n := range o.Cloud.Nodes {
		if c := conds[n.Name]; (c == NodeReady || c == NodeComing) && !p.retired(n) {
			out = append(out, n)
		}
	}
	return out
}

// retired reports whether n's flavor is no longer configured: its pool
// was removed from the flavors, and the node is drained and removed.
func (p *Provisioner) retired(n NodeState) bool {
	_, ok := p.cfg.Flavor(n.Flavor)
	return !ok
}
