package sim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
)

// cloudState is the cloud cluster's life: asked for, then usable, with
// nodes of its pools being added and removed.
type cloudState struct {
	member *member // nil while the cluster is provisioning
	// initial are the nodes the cluster joins with: those it was asked
	// for with, and those added while it was provisioned that are ready.
	initial []*cluster.Node
	// coming are the nodes asked for and not ready yet.
	coming []*cluster.Node
	// flavors are the flavors of every node asked for and not removed.
	flavors map[string]provision.Flavor
	// joined is when each node became ready; drains are the nodes being
	// drained, with when their drain started.
	joined map[string]time.Time
	drains map[string]*drain
	nodeN  int
}

// drain is one node being drained: cordoned at started; evicting while
// its evicted pods terminate.
type drain struct {
	started  time.Time
	evicting bool
}

// podTermination is how long an evicted pod takes to terminate
// (Kubernetes' default terminationGracePeriodSeconds) before its member
// Deployment creates it again elsewhere.
const podTermination = 30 * time.Second

// billing integrates the cloud's paid CPU over virtual time.
type billing struct {
	cores, price float64 // paid now, per hour
	since        time.Duration
	cpuHours     float64
	cost         float64
}

func (b *billing) change(now time.Duration, cores, price float64) {
	h := (now - b.since).Hours()
	b.cpuHours += b.cores * h
	b.cost += b.price * h
	b.cores += cores
	b.price += price
	b.since = now
}

// provisioner is one pass of the cloud provisioner and cluster autoscaler:
// provision.Provisioner.Pass, the CloudProvisioner controller's own pass
// (the drains' steps, the wait while the members settle, the decision and
// when to pass again), carried out on the modelled cloud.
func (w *world) provisioner() {
	pass := w.prov.Pass(provision.PassInput{Input: w.provisionInput(), Drains: w.drainStates(), MembersChanged: w.membersChangedAt})
	w.stepDrains(pass.DrainSteps, pass.Drained)
	if pass.Decided {
		d := pass.Decision
		w.trend = d.Trend
		switch d.Action {
		case provision.ProvisionCluster:
			w.provisionCloud(d)
		case provision.AddNodes:
			w.addCloudNodes(d)
		case provision.RemoveNodes:
			w.startDrains(d.Drain)
			if len(d.Remove) > 0 {
				w.removeCloudNodes(d.Remove, d.Reason)
			}
		case provision.RemoveCluster:
			w.removeCloud(d.Reason)
		}
	}
	w.eng.After(pass.RequeueAfter, w.provisioner)
}

// startDrains cordons the nodes a decision drains.
func (w *world) startDrains(names []string) {
	c := w.cloud
	for _, name := range names {
		if n := c.member.Node(name); n != nil {
			n.Unschedulable = true
			c.drains[name] = &drain{started: w.now()}
			w.version++
		}
	}
}

// drainStates is where every drain stands, as the controller reads it
// from the nodes: the pods left, and those not terminating yet.
func (w *world) drainStates() map[string]provision.DrainState {
	c := w.cloud
	if c == nil || c.member == nil {
		return nil // nothing joined, nothing to drain; an unreachable cluster's drains wait in provision.Pass
	}
	out := map[string]provision.DrainState{}
	for name, d := range c.drains {
		n := c.member.Node(name)
		if n == nil {
			continue
		}
		s := provision.DrainState{Started: d.started, Pods: n.PodCount()}
		if !d.evicting {
			s.Evictable = s.Pods
		}
		out[name] = s
	}
	return out
}

// stepDrains carries out the drains' steps: a node's pods are evicted and
// terminate for podTermination, then their member Deployment creates them
// again elsewhere; a node given back is uncordoned; the nodes drained
// empty are removed (drained). Nothing refuses an eviction here, so no
// drain is given back in practice.
func (w *world) stepDrains(steps map[string]provision.DrainStep, drained provision.Decision) {
	c := w.cloud
	for _, name := range slices.Sorted(maps.Keys(steps)) {
		d, n := c.drains[name], c.member.Node(name)
		switch steps[name] {
		case provision.DrainEvict:
			d.evicting = true
			w.eng.After(podTermination, func() {
				if w.cloud != c || c.drains[name] != d {
					return
				}
				for _, p := range n.Pods() {
					c.member.DeletePod(p)
					w.onEvicted([]*cluster.Pod{p})
				}
				d.evicting = false
				w.capacityChanged()
			})
		case provision.DrainAbandon:
			delete(c.drains, name)
			n.Unschedulable = false
			w.version++
		}
	}
	if drained.Action == provision.RemoveNodes {
		w.removeCloudNodes(drained.Remove, drained.Reason)
	}
}

// provisionInput is what the provisioner reads of the world.
func (w *world) provisionInput() provision.Input {
	in := provision.Input{Now: w.now()}
	for _, wl := range w.active {
		in.Workloads = append(in.Workloads, provision.WorkloadOf(wl.spec, wl.asked(), wl.unplaced()))
	}
	for _, m := range w.members {
		if m.cloud {
			continue
		}
		pm := provision.Member{Ready: !m.down}
		for _, n := range m.Nodes {
			pm.Nodes = append(pm.Nodes, placement.Node{Name: n.Name, Allocatable: n.Allocatable, Requested: n.Requested, Unschedulable: n.Unschedulable})
		}
		in.Members = append(in.Members, pm)
	}
	c := w.cloud
	if c == nil {
		return in
	}
	m := c.member
	in.Cloud = &provision.Cloud{Phase: provision.PhaseOf(m != nil, m != nil && !m.down)}
	switch in.Cloud.Phase {
	case provision.Unreachable:
		return in
	case provision.Provisioning:
		// Every node asked for is coming, as the controller lists the
		// workers asked of the backend's pools.
		for _, n := range slices.Concat(c.initial, c.coming) {
			in.Cloud.Nodes = append(in.Cloud.Nodes, c.comingState(n))
		}
		return in
	}
	for _, p := range m.Pending() {
		in.CloudPending = append(in.CloudPending, p.Requests)
	}
	for _, n := range m.Nodes {
		ns := provision.NodeState{
			Name: n.Name, Flavor: c.flavors[n.Name].Name, Allocatable: n.Allocatable, Requested: n.Requested,
			Ready: true, Cordoned: n.Unschedulable, Draining: c.drains[n.Name] != nil, Created: c.joined[n.Name],
		}
		for _, p := range n.Pods() {
			ns.Pods = append(ns.Pods, p.Requests)
		}
		in.Cloud.Nodes = append(in.Cloud.Nodes, ns)
	}
	for _, n := range c.coming {
		in.Cloud.Nodes = append(in.Cloud.Nodes, c.comingState(n))
	}
	for _, wl := range w.active {
		if wl.counts(false)[m.Name] > 0 {
			in.Cloud.Workloads++
		}
	}
	return in
}

// comingState is n as the provisioner sees a node asked for that has not
// joined: its pool and size, nothing more.
func (c *cloudState) comingState(n *cluster.Node) provision.NodeState {
	return provision.NodeState{Name: n.Name, Flavor: c.flavors[n.Name].Name, Allocatable: n.Allocatable}
}

// pay starts (n 1) or stops (n -1) paying for a node of flavor f.
func (w *world) pay(f provision.Flavor, n int) {
	w.rec.billing.change(w.eng.Now(), float64(n)*float64(f.Allocatable.MilliCPU)/1000, float64(n)*f.PricePerHour.Float64())
}

// orderNodes asks for the nodes of d, paying for them from now.
func (w *world) orderNodes(c *cloudState, d provision.Decision) []*cluster.Node {
	var out []*cluster.Node
	for _, g := range d.Add {
		f, _ := w.prov.Config().Flavor(g.Flavor)
		for range g.Nodes {
			c.nodeN++
			n := cluster.NewNode(fmt.Sprintf("%s-%s-%d", w.sc.Cloud.Name, f.Name, c.nodeN), f.Allocatable)
			c.flavors[n.Name] = f
			w.pay(f, 1)
			out = append(out, n)
		}
	}
	return out
}

func (w *world) provisionCloud(d provision.Decision) {
	c := &cloudState{flavors: map[string]provision.Flavor{}, joined: map[string]time.Time{}, drains: map[string]*drain{}}
	w.cloud = c
	c.initial = w.orderNodes(c, d)
	w.rec.cloudProvisioning()
	w.event(EventCloudProvisioning, "cloud cluster %q asked for with %s: %s", w.sc.Cloud.Name, provision.Groups(d.Add), d.Reason)
	w.eng.After(w.sc.Cloud.ClusterDelay, func() {
		if w.cloud != c {
			return
		}
		// The cloud cluster's scheduler packs, as the CloudProvisioner
		// configures it, so that consolidation finds empty nodes.
		cc := cluster.New(w.sc.Cloud.Name)
		cc.Scoring = cluster.MostAllocated
		m := &member{Cluster: cc, cloud: true, info: placement.Cluster{
			Name: w.sc.Cloud.Name, Region: w.sc.Cloud.Region, Provider: w.sc.Cloud.Provider, Cloud: true, Ready: true,
		}}
		m.Nodes = append(m.Nodes, c.initial...)
		for _, n := range c.initial {
			c.joined[n.Name] = w.now()
		}
		c.initial = nil
		c.member = m
		w.addMember(m)
		w.rec.cloudReady()
		w.event(EventCloudReady, "cloud cluster %q ready with %d nodes", m.Name, len(m.Nodes))
		w.membersChanged()
	})
}

func (w *world) addCloudNodes(d provision.Decision) {
	c := w.cloud
	nodes := w.orderNodes(c, d)
	c.coming = append(c.coming, nodes...)
	for _, node := range nodes {
		w.eng.After(w.sc.Cloud.NodeDelay, func() {
			if w.cloud != c {
				return
			}
			for i, n := range c.coming {
				if n == node {
					c.coming = append(c.coming[:i], c.coming[i+1:]...)
					break
				}
			}
			if c.member == nil {
				// Asked for while the cluster is provisioned: a machine
				// cannot join a control plane that is not up, so it joins
				// with the cluster.
				c.initial = append(c.initial, node)
				return
			}
			c.member.AddNode(node)
			c.joined[node.Name] = w.now()
			w.version++
			w.capacityChanged()
		})
	}
	w.event(EventNodesAdded, "%s asked for: %s", provision.Groups(d.Add), d.Reason)
}

func (w *world) removeCloudNodes(names []string, reason string) {
	c := w.cloud
	for _, name := range names {
		w.onEvicted(c.member.RemoveNode(name))
		w.pay(c.flavors[name], -1)
		delete(c.flavors, name)
		delete(c.joined, name)
		delete(c.drains, name)
	}
	w.version++
	w.event(EventNodesRemoved, "nodes %v removed: %s", names, reason)
	w.capacityChanged()
}

func (w *world) removeCloud(reason string) {
	c := w.cloud
	if m := c.member; m != nil {
		for _, n := range append([]*cluster.Node(nil), m.Nodes...) {
			w.onEvicted(m.RemoveNode(n.Name))
		}
		w.removeMember(m)
	}
	for _, name := range slices.Sorted(maps.Keys(c.flavors)) {
		w.pay(c.flavors[name], -1)
	}
	w.cloud = nil
	w.rec.cloudRemoved()
	w.event(EventCloudRemoved, "cloud cluster %q removed: %s", w.sc.Cloud.Name, reason)
	w.membersChanged()
}
