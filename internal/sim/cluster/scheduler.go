package cluster

import "github.com/meridian-dev/meridian/internal/placement"

// AddPod puts p in the cluster and tries to bind it at once; it reports
// whether p is Running. A pod that fits no node joins the Pending queue.
func (c *Cluster) AddPod(p *Pod) bool {
	p.Cluster = c
	p.Node = nil
	c.assigned = c.assigned.Add(p.Requests)
	c.pods++
	if n := c.pick(p.Requests); n != nil {
		c.bind(p, n)
		return true
	}
	c.pending = append(c.pending, p)
	return false
}

// DeletePod removes p, bound or Pending, and retries the Pending pods when
// it freed room. It is a no-op for a pod of another cluster.
func (c *Cluster) DeletePod(p *Pod) {
	if p.Cluster != c {
		return
	}
	c.assigned = c.assigned.Sub(p.Requests)
	c.pods--
	p.Cluster = nil
	if n := p.Node; n != nil {
		delete(n.pods, p.ID)
		n.Requested = n.Requested.Sub(p.Requests)
		p.Node = nil
		c.SchedulePending()
		return
	}
	for i, q := range c.pending {
		if q == p {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return
		}
	}
}

// AddNode adds n to the cluster and retries the Pending pods.
func (c *Cluster) AddNode(n *Node) {
	if n.pods == nil {
		n.pods = map[int64]*Pod{}
	}
	c.Nodes = append(c.Nodes, n)
	c.SchedulePending()
}

// RemoveNode removes the named node and returns the pods that were bound to
// it; they are no longer in the cluster, and the caller decides where they
// go (kube-controller-manager deletes them, their controller recreates them).
func (c *Cluster) RemoveNode(name string) []*Pod {
	for i, n := range c.Nodes {
		if n.Name != name {
			continue
		}
		c.Nodes = append(c.Nodes[:i], c.Nodes[i+1:]...)
		evicted := n.Pods()
		for _, p := range evicted {
			c.assigned = c.assigned.Sub(p.Requests)
			c.pods--
			p.Node = nil
			p.Cluster = nil
		}
		n.pods = map[int64]*Pod{}
		n.Requested = placement.Resources{}
		return evicted
	}
	return nil
}

// SchedulePending binds, oldest first, the Pending pods that now fit.
func (c *Cluster) SchedulePending() {
	if len(c.pending) == 0 {
		return
	}
	maxCPU, maxMem := c.maxFree()
	kept := c.pending[:0]
	for _, p := range c.pending {
		if p.Requests.MilliCPU > maxCPU || p.Requests.Memory > maxMem {
			kept = append(kept, p)
			continue
		}
		n := c.pick(p.Requests)
		if n == nil {
			kept = append(kept, p)
			continue
		}
		c.bind(p, n)
		maxCPU, maxMem = c.maxFree()
	}
	for i := len(kept); i < len(c.pending); i++ {
		c.pending[i] = nil
	}
	c.pending = kept
}

// pick is the scheduling cycle for one pod: filter on fit, score with the
// cluster's strategy, first node among equals.
func (c *Cluster) pick(r placement.Resources) *Node {
	var best *Node
	bestScore := int64(-1)
	for _, n := range c.Nodes {
		if !n.Fits(r) {
			continue
		}
		if s := n.score(c.Scoring, r); s > bestScore {
			best, bestScore = n, s
		}
	}
	return best
}

func (c *Cluster) bind(p *Pod, n *Node) {
	p.Node = n
	n.pods[p.ID] = p
	n.Requested = n.Requested.Add(p.Requests)
	if c.OnBind != nil {
		c.OnBind(p)
	}
}

func (c *Cluster) maxFree() (cpu, mem int64) {
	for _, n := range c.Nodes {
		if n.Unschedulable || n.Requested.Pods >= n.Allocatable.Pods {
			continue
		}
		cpu = max(cpu, n.Allocatable.MilliCPU-n.Requested.MilliCPU)
		mem = max(mem, n.Allocatable.Memory-n.Requested.Memory)
	}
	return cpu, mem
}
