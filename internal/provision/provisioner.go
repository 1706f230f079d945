package provision

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Provisioner is one cloud provisioner and cluster autoscaler. It keeps the
// little history its rules need (demand trend, how long nodes have been
// unneeded, how long the cluster has been idle); everything else comes in
// each Observation.
type Provisioner struct {
	cfg           Config
	trend         trend
	unneededSince map[string]time.Time
	idleSince     time.Time
	largest       placement.Resources
}

// New returns a provisioner for cfg, which must be valid.
func New(cfg Config) *Provisioner {
	return &Provisioner{
		cfg:           cfg,
		trend:         trend{window: cfg.TrendWindow},
		unneededSince: map[string]time.Time{},
	}
}

// Config returns the provisioner's configuration.
func (p *Provisioner) Config() Config { return p.cfg }

// Decide returns what to do now.
func (p *Provisioner) Decide(o Observation) Decision {
	p.trend.add(o.Now, o.Demand)
	for _, r := range o.Unschedulable {
		p.largest.MilliCPU = max(p.largest.MilliCPU, r.MilliCPU)
		p.largest.Memory = max(p.largest.Memory, r.Memory)
	}
	switch {
	case o.Cloud == nil:
		p.idleSince = time.Time{}
		clear(p.unneededSince)
		return p.provision(o)
	case o.Cloud.Phase == Provisioning:
		return Decision{Action: None, Reason: "cloud cluster is being provisioned"}
	}
	if d := p.scaleUp(o); d.Action != None {
		return d
	}
	if d := p.deprovision(o); d.Action != None {
		return d
	}
	return p.scaleDown(o)
}

// required is the capacity the forecast at now+lead wants, or zero in
// reactive mode.
func (p *Provisioner) required(lead time.Duration) placement.Resources {
	if p.cfg.Mode != Predictive {
		return placement.Resources{}
	}
	f := p.trend.forecast(lead + p.cfg.Period)
	return placement.Resources{
		MilliCPU: int64(math.Ceil(float64(f.MilliCPU) / p.cfg.TargetUtilization)),
		Memory:   int64(math.Ceil(float64(f.Memory) / p.cfg.TargetUtilization)),
	}
}

// nodesFor is how many nodes of size cover deficit.
func nodesFor(deficit, size placement.Resources) int {
	n := 0
	if deficit.MilliCPU > 0 {
		n = max(n, int(math.Ceil(float64(deficit.MilliCPU)/float64(size.MilliCPU))))
	}
	if deficit.Memory > 0 {
		n = max(n, int(math.Ceil(float64(deficit.Memory)/float64(size.Memory))))
	}
	return n
}

func (p *Provisioner) provision(o Observation) Decision {
	deficit := minus(p.required(p.cfg.ClusterDelay+p.cfg.NodeDelay), o.Capacity)
	best, bestNodes, bestCost := Flavor{}, 0, math.Inf(1)
	for _, f := range p.cfg.Flavors {
		if !fits(placement.Resources{MilliCPU: p.largest.MilliCPU, Memory: p.largest.Memory}, f.Allocatable) {
			continue
		}
		n := max(nodesFor(deficit, f.Allocatable), packNew(o.Unschedulable, nil, f.Allocatable))
		if n == 0 {
			continue
		}
		n = min(max(n, p.cfg.MinNodes), p.cfg.MaxNodes)
		if cost := float64(n) * f.PricePerHour; cost < bestCost {
			best, bestNodes, bestCost = f, n, cost
		}
	}
	if bestNodes == 0 {
		return Decision{Action: None, Reason: "member clusters have room"}
	}
	reason := fmt.Sprintf("%d replicas unschedulable", len(o.Unschedulable))
	if deficit.MilliCPU > 0 || deficit.Memory > 0 {
		reason = fmt.Sprintf("forecast demand exceeds capacity by %dm CPU; %s", max(deficit.MilliCPU, 0), reason)
	}
	return Decision{Action: ProvisionCluster, Flavor: best.Name, Nodes: bestNodes, Reason: reason}
}

func (p *Provisioner) flavor(name string) Flavor {
	for _, f := range p.cfg.Flavors {
		if f.Name == name {
			return f
		}
	}
	return p.cfg.Flavors[0]
}

// cloudCapacity sums the allocatable resources of the cloud nodes, ready
// or coming.
func cloudCapacity(c *Cloud) placement.Resources {
	var r placement.Resources
	for _, n := range c.Nodes {
		r.MilliCPU += n.Allocatable.MilliCPU
		r.Memory += n.Allocatable.Memory
		r.Pods += n.Allocatable.Pods
	}
	return r
}

func (p *Provisioner) scaleUp(o Observation) Decision {
	f := p.flavor(o.Cloud.Flavor)
	total := cloudCapacity(o.Cloud)
	total.MilliCPU += o.Capacity.MilliCPU
	total.Memory += o.Capacity.Memory
	deficit := minus(p.required(p.cfg.NodeDelay), total)
	bins := make([]placement.Resources, 0, len(o.Cloud.Nodes))
	for _, n := range o.Cloud.Nodes {
		bins = append(bins, minus(n.Allocatable, n.Requested))
	}
	n := max(nodesFor(deficit, f.Allocatable), packNew(o.Unschedulable, bins, f.Allocatable))
	n = min(n, p.cfg.MaxNodes-len(o.Cloud.Nodes))
	if n <= 0 {
		return Decision{Action: None}
	}
	return Decision{Action: AddNodes, Flavor: f.Name, Nodes: n,
		Reason: fmt.Sprintf("%d replicas unschedulable, forecast deficit %dm CPU", len(o.Unschedulable), max(deficit.MilliCPU, 0))}
}

func (p *Provisioner) deprovision(o Observation) Decision {
	if o.Cloud.Workloads > 0 || len(o.Unschedulable) > 0 {
		p.idleSince = time.Time{}
		return Decision{Action: None}
	}
	if p.idleSince.IsZero() {
		p.idleSince = o.Now
	}
	if d := minus(p.required(p.cfg.ClusterDelay), o.Capacity); d.MilliCPU > 0 || d.Memory > 0 {
		return Decision{Action: None}
	}
	if o.Now.Sub(p.idleSince) < p.cfg.DeprovisionDelay {
		return Decision{Action: None}
	}
	return Decision{Action: RemoveCluster,
		Reason: fmt.Sprintf("no workload in the cloud cluster for %v", o.Now.Sub(p.idleSince))}
}

func (p *Provisioner) scaleDown(o Observation) Decision {
	if len(o.Unschedulable) > 0 {
		clear(p.unneededSince)
		return Decision{Action: None}
	}
	total := cloudCapacity(o.Cloud)
	total.MilliCPU += o.Capacity.MilliCPU
	total.Memory += o.Capacity.Memory
	spare := minus(total, p.required(p.cfg.NodeDelay))

	// Least utilized first, so the emptiest nodes are the candidates.
	nodes := slices.Clone(o.Cloud.Nodes)
	slices.SortStableFunc(nodes, func(a, b NodeState) int {
		return int(a.Requested.MilliCPU - b.Requested.MilliCPU)
	})
	removed := map[string]bool{}
	var remove []string
	nonEmpty := false
	for _, n := range nodes {
		if !n.Ready || !p.unneeded(n, o.Cloud.Nodes, removed, spare) {
			delete(p.unneededSince, n.Name)
			continue
		}
		since, ok := p.unneededSince[n.Name]
		if !ok {
			p.unneededSince[n.Name] = o.Now
			continue
		}
		if o.Now.Sub(since) < p.cfg.ScaleDownDelay || len(o.Cloud.Nodes)-len(remove) <= p.cfg.MinNodes {
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
		spare = minus(spare, n.Allocatable)
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
		Reason: fmt.Sprintf("unneeded for %v", p.cfg.ScaleDownDelay)}
}

// unneeded is the cluster autoscaler's rule: requests below the threshold,
// pods that fit on the other nodes, and (predictive) capacity the forecast
// does not need.
func (p *Provisioner) unneeded(n NodeState, all []NodeState, removed map[string]bool, spare placement.Resources) bool {
	if spare.MilliCPU < n.Allocatable.MilliCPU || spare.Memory < n.Allocatable.Memory {
		return false
	}
	util := max(float64(n.Requested.MilliCPU)/float64(n.Allocatable.MilliCPU),
		float64(n.Requested.Memory)/float64(n.Allocatable.Memory))
	if util >= p.cfg.ScaleDownUtilization && len(n.Pods) > 0 {
		return false
	}
	var bins []placement.Resources
	for _, m := range all {
		if m.Name != n.Name && m.Ready && !removed[m.Name] {
			bins = append(bins, minus(m.Allocatable, m.Requested))
		}
	}
	return packInto(n.Pods, bins)
}

// IdleSince returns when the cloud cluster was first seen running no
// workload, or zero while it runs some.
func (p *Provisioner) IdleSince() time.Time { return p.idleSince }

// Restore carries over what a previous provisioner recorded (after a
// controller restart), so that the de-provisioning delay does not start
// again.
func (p *Provisioner) Restore(idleSince time.Time) { p.idleSince = idleSince }
