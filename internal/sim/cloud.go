package sim

import (
	"fmt"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
)

// cloudState is the cloud cluster's life: asked for, then usable, with
// nodes being added.
type cloudState struct {
	member *member // nil while the cluster is provisioning
	flavor provision.Flavor
	// coming are the nodes asked for and not ready yet.
	coming []string
	nodeN  int
	// paid is how many nodes are paid for: asked for and not removed.
	paid int
}

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

// provisioner is one pass of the cloud provisioner and cluster autoscaler.
func (w *world) provisioner() {
	o := provision.Observation{Now: w.now()}
	for _, m := range w.members {
		if !m.cloud {
			r := m.Allocatable()
			o.Capacity.MilliCPU += r.MilliCPU
			o.Capacity.Memory += r.Memory
		}
	}
	for _, wl := range w.active {
		n := int64(wl.asked())
		o.Demand.MilliCPU += n * wl.requests.MilliCPU
		o.Demand.Memory += n * wl.requests.Memory
		for range wl.unplaced() {
			o.Unschedulable = append(o.Unschedulable, wl.requests)
		}
	}
	if c := w.cloud; c != nil {
		o.Cloud = &provision.Cloud{Phase: provision.Provisioning, Flavor: c.flavor.Name}
		if m := c.member; m != nil {
			o.Cloud.Phase = provision.Ready
			for _, p := range m.Pending() {
				o.Unschedulable = append(o.Unschedulable, p.Requests)
			}
			for _, n := range m.Nodes {
				ns := provision.NodeState{Name: n.Name, Allocatable: n.Allocatable, Requested: n.Requested, Ready: true}
				for _, p := range n.Pods() {
					ns.Pods = append(ns.Pods, p.Requests)
				}
				o.Cloud.Nodes = append(o.Cloud.Nodes, ns)
			}
			for _, wl := range w.active {
				if wl.counts(false)[m.Name] > 0 {
					o.Cloud.Workloads++
				}
			}
		}
		for _, name := range c.coming {
			o.Cloud.Nodes = append(o.Cloud.Nodes, provision.NodeState{Name: name, Allocatable: c.flavor.Allocatable})
		}
	}
	d := w.prov.Decide(o)
	switch d.Action {
	case provision.ProvisionCluster:
		w.provisionCloud(d)
	case provision.AddNodes:
		w.addCloudNodes(d.Nodes)
	case provision.RemoveNodes:
		w.removeCloudNodes(d.Remove, d.Reason)
	case provision.RemoveCluster:
		w.removeCloud(d.Reason)
	}
}

// pay changes the nodes paid for by n.
func (w *world) pay(c *cloudState, n int) {
	c.paid += n
	w.rec.billing.change(w.eng.Now(), float64(n)*float64(c.flavor.Allocatable.MilliCPU)/1000, float64(n)*c.flavor.PricePerHour)
}

func (w *world) flavor(name string) provision.Flavor {
	for _, f := range w.prov.Config().Flavors {
		if f.Name == name {
			return f
		}
	}
	return w.prov.Config().Flavors[0]
}

func (w *world) cloudNode(c *cloudState) *cluster.Node {
	c.nodeN++
	return cluster.NewNode(fmt.Sprintf("%s-node-%d", w.sc.Cloud.Name, c.nodeN), c.flavor.Allocatable)
}

func (w *world) provisionCloud(d provision.Decision) {
	c := &cloudState{flavor: w.flavor(d.Flavor)}
	w.cloud = c
	w.pay(c, d.Nodes)
	w.rec.cloudProvisioning()
	w.event(EventCloudProvisioning, "cloud cluster %q asked for with %d %s nodes: %s", w.sc.Cloud.Name, d.Nodes, d.Flavor, d.Reason)
	w.eng.After(w.sc.Cloud.ClusterDelay, func() {
		if w.cloud != c {
			return
		}
		m := &member{Cluster: cluster.New(w.sc.Cloud.Name), cloud: true, info: placement.Cluster{
			Name: w.sc.Cloud.Name, Region: w.sc.Cloud.Region, Provider: w.sc.Cloud.Provider, Cloud: true, Ready: true,
		}}
		for range d.Nodes {
			m.Nodes = append(m.Nodes, w.cloudNode(c))
		}
		c.member = m
		w.addMember(m)
		w.rec.cloudReady()
		w.event(EventCloudReady, "cloud cluster %q ready with %d nodes", m.Name, len(m.Nodes))
		w.capacityChanged()
	})
}

func (w *world) addCloudNodes(n int) {
	c := w.cloud
	w.pay(c, n)
	var names []string
	for range n {
		node := w.cloudNode(c)
		c.coming = append(c.coming, node.Name)
		names = append(names, node.Name)
		w.eng.After(w.sc.Cloud.NodeDelay, func() {
			if w.cloud != c || c.member == nil {
				return
			}
			for i, name := range c.coming {
				if name == node.Name {
					c.coming = append(c.coming[:i], c.coming[i+1:]...)
					break
				}
			}
			c.member.AddNode(node)
			w.version++
			w.capacityChanged()
		})
	}
	w.event(EventNodesAdded, "%d %s nodes asked for: %v", n, c.flavor.Name, names)
}

func (w *world) removeCloudNodes(names []string, reason string) {
	c := w.cloud
	for _, name := range names {
		w.onEvicted(c.member.RemoveNode(name))
		w.pay(c, -1)
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
	w.pay(c, -c.paid)
	w.cloud = nil
	w.rec.cloudRemoved()
	w.event(EventCloudRemoved, "cloud cluster %q removed: %s", w.sc.Cloud.Name, reason)
	w.capacityChanged()
}
