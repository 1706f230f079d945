package provision

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Provisioner is one cloud provisioner and cluster autoscaler. It keeps the
// little history its rules need (demand trend, how long nodes have been
// unneeded, which nodes were seen Ready and since when broken ones are
// broken, how long the cluster has been idle); everything else comes in
// each Observation.
type Provisioner struct {
	cfg           Config
	trend         trend
	unneededSince map[string]time.Time
	seenReady     map[string]bool
	notReadySince map[string]time.Time
	idleSince     time.Time
}

// New returns a provisioner for cfg, which must be valid.
func New(cfg Config) *Provisioner {
	return &Provisioner{
		cfg:           cfg,
		trend:         trend{window: cfg.TrendWindow, spacing: cfg.Period},
		unneededSince: map[string]time.Time{},
		seenReady:     map[string]bool{},
		notReadySince: map[string]time.Time{},
	}
}

// Config returns the provisioner's configuration.
func (p *Provisioner) Config() Config { return p.cfg }

// Decide returns what to do now, and the demand's trend once the history
// is long enough to forecast from.
func (p *Provisioner) Decide(o Observation) Decision {
	p.trend.add(o.Now, o.Demand, largestSize(o.Sizes))
	d := p.decide(o)
	if p.cfg.Mode == Predictive && p.trend.known() {
		d.Trend = Rising
		if p.settled(o) {
			d.Trend = Settled
		}
	}
	return d
}

func (p *Provisioner) decide(o Observation) Decision {
	if o.Cloud != nil && o.Cloud.Phase == Unreachable {
		return Decision{Action: None, Reason: "cloud cluster is unreachable"}
	}
	conds := p.conditions(o)
	switch {
	case o.Cloud == nil:
		p.idleSince = time.Time{}
		clear(p.unneededSince)
		return p.provision(o)
	case o.Cloud.Phase == Provisioning:
		// The predictive mode grows the pools of a cluster being
		// provisioned when the forecast outgrows what it was asked for:
		// the nodes join with it, or a node's delay after they are asked
		// for. The reactive mode waits for the cluster, as seed 001's
		// Algorithm 4 does.
		if p.cfg.Mode == Predictive {
			if d := p.scaleUp(o, conds); d.Action != None {
				return d
			}
		}
		return Decision{Action: None, Reason: "cloud cluster is being provisioned"}
	}
	if d := p.scaleUp(o, conds); d.Action != None {
		return d
	}
	if d := p.removeBroken(o, conds); d.Action != None {
		return d
	}
	if d := p.deprovision(o); d.Action != None {
		return d
	}
	return p.scaleDown(o, conds)
}

// expected are, in predictive mode, the replicas the forecast for r adds
// over r's lead: the rise of the demand's trend, cut into replicas
// of the mean size asked for now, with the target utilization's headroom
// for fragmentation and forecast error. It is empty in reactive mode and
// while the demand does not rise. Only the rise is forecast: the replicas
// asked for now are placed, or unschedulable, already.
func (p *Provisioner) expected(o Observation, r reach) []placement.Resources {
	if p.cfg.Mode != Predictive || o.Demand.Pods <= 0 {
		return nil
	}
	var out []placement.Resources
	f := p.trend.forecast(p.lead(r), r)
	riseCPU, riseMem := f.MilliCPU-o.Demand.MilliCPU, f.Memory-o.Demand.Memory
	if riseCPU <= 0 && riseMem <= 0 {
		return out
	}
	if l := p.trend.largest(); l.MilliCPU > 0 {
		out = append(out, l)
	}
	mean := placement.Resources{
		MilliCPU: max(1, o.Demand.MilliCPU/o.Demand.Pods),
		Memory:   max(1, o.Demand.Memory/o.Demand.Pods),
		Pods:     1,
	}
	n := max(float64(riseCPU)/float64(mean.MilliCPU), float64(riseMem)/float64(mean.Memory))
	k := min(int(math.Ceil(n/p.cfg.TargetUtilization)), maxExpected)
	for range k {
		out = append(out, mean)
	}
	return out
}

// lead is how far ahead the forecast for r looks: until the nodes or the
// cluster asked for now would be ready, plus three quarters of a period,
// for the demand that the next decision would be late for. Not a whole
// period: the next decision comes at most a period later and the rise
// it would be late for is seldom a whole period's, so a whole period
// bought nodes ahead of need (docs/design/20261123-predictive-cost.md).
func (p *Provisioner) lead(r reach) time.Duration {
	next := p.cfg.Period * 3 / 4
	switch r {
	case forKeeping:
		return p.cfg.ClusterDelay + next
	case forBuying:
		return p.cfg.ClusterDelay + p.cfg.NodeDelay + next
	default:
		return p.cfg.NodeDelay + next
	}
}

// maxExpected bounds the replicas a forecast adds, so that a wild trend
// costs a bounded amount of packing.
const maxExpected = 10000

// shortage is what new nodes would hold: the unschedulable replicas packed
// first-fit decreasing into the free space of the cloud nodes given (Ready
// or coming, never cordoned or broken ones), the forecast's replicas into what is left there and in the
// member clusters, and whatever is left over into the cheapest mix of new
// nodes. It also returns the replicas no flavor holds and how many
// forecast replicas need new nodes.
func (p *Provisioner) shortage(o Observation, r reach, cloud []NodeState) (mix, []placement.Resources, int) {
	cloudFree := make([]placement.Resources, 0, len(cloud))
	for _, n := range cloud {
		cloudFree = append(cloudFree, n.Allocatable.Sub(n.Requested))
	}
	var rest []placement.Resources
	for _, u := range decreasing(o.Unschedulable) {
		if !firstFit(u, cloudFree) {
			rest = append(rest, u)
		}
	}
	free := append(decreasingFree(o.Free), cloudFree...)
	extra := 0
	for _, e := range p.expected(o, r) {
		if !firstFit(e, free) {
			rest = append(rest, e)
			extra++
		}
	}
	m, unfit := cheapestMix(rest, p.cfg.Flavors)
	return m, unfit, extra
}

// decreasingFree orders free spaces largest first, so that a forecast
// replica takes the room a real one would be placed in.
func decreasingFree(free []placement.Resources) []placement.Resources {
	return decreasing(free)
}

// limit keeps the first n nodes of m (those opened for the largest
// replicas) and prices it again.
func (p *Provisioner) limit(m mix, n int) mix {
	if len(m.nodes) <= n {
		return m
	}
	m.nodes = m.nodes[:max(n, 0)]
	return rightSize(m, p.cfg.Flavors)
}

// pad adds nodes of the cheapest flavor to m until, with the have nodes
// the cloud cluster keeps, there are MinNodes, and prices m again: nodes
// that only MinNodes asks for are the cheapest ones, and paid for in the
// decision's price.
func (p *Provisioner) pad(m mix, have int) mix {
	cheapest := p.cfg.padFlavor()
	if cheapest < 0 || have+len(m.nodes) >= p.cfg.MinNodes {
		return m
	}
	for have+len(m.nodes) < p.cfg.MinNodes {
		m.nodes = append(m.nodes, newNode{flavor: cheapest})
	}
	return rightSize(m, p.cfg.Flavors)
}

// explain puts what a mix is for in words.
func explain(o Observation, m mix, unfit []placement.Resources, extra, moving int) string {
	var parts []string
	if n := len(o.Unschedulable) - moving; n > 0 {
		parts = append(parts, fmt.Sprintf("%d replicas unschedulable", n))
	}
	if moving > 0 {
		parts = append(parts, fmt.Sprintf("%d replicas on nodes of removed flavors", moving))
	}
	if extra > 0 {
		parts = append(parts, fmt.Sprintf("forecast needs room for %d more", extra))
	}
	if len(unfit) > 0 {
		parts = append(parts, fmt.Sprintf("%d replicas larger than every flavor", len(unfit)))
	}
	if len(parts) == 0 {
		parts = append(parts, "minimum nodes")
	}
	return strings.Join(parts, ", ") + " (" + m.cost.Format(2) + "/h)"
}

func (p *Provisioner) provision(o Observation) Decision {
	m, unfit, extra := p.shortage(o, forBuying, nil)
	if len(m.nodes) == 0 {
		if len(unfit) > 0 {
			return Decision{Action: None, Reason: fmt.Sprintf("%d replicas larger than every flavor", len(unfit))}
		}
		return Decision{Action: None, Reason: "member clusters have room"}
	}
	m = p.limit(p.pad(m, 0), p.cfg.MaxNodes)
	return Decision{Action: ProvisionCluster, Add: m.groups(p.cfg.Flavors), Reason: explain(o, m, unfit, extra, 0)}
}

// scaleUp adds the nodes the unschedulable replicas, the forecast and the
// pods of retired nodes need beyond the room of the usable nodes (Ready or
// coming), and the cheapest nodes that bring the usable ones back to
// MinNodes (after a broken or retired node). MaxNodes counts every node,
// as every node is paid for.
func (p *Provisioner) scaleUp(o Observation, conds map[string]NodeCondition) Decision {
	usable := p.usable(o, conds)
	// The pods of a retired node need room elsewhere before it is
	// drained, as Karpenter replaces a drifted node before it drains it.
	moving := 0
	with := o
	for _, n := range o.Cloud.Nodes {
		if conds[n.Name] == NodeReady && p.retired(n) {
			if moving == 0 {
				with.Unschedulable = slices.Clone(o.Unschedulable)
			}
			with.Unschedulable = append(with.Unschedulable, n.Pods...)
			moving += len(n.Pods)
		}
	}
	m, unfit, extra := p.shortage(with, forNodes, usable)
	m = p.limit(p.pad(m, len(usable)), p.cfg.MaxNodes-len(o.Cloud.Nodes))
	if len(m.nodes) == 0 {
		return Decision{Action: None}
	}
	return Decision{Action: AddNodes, Add: m.groups(p.cfg.Flavors), Reason: explain(with, m, unfit, extra, moving)}
}

func (p *Provisioner) deprovision(o Observation) Decision {
	if o.Cloud.Workloads > 0 || len(o.Unschedulable) > 0 {
		p.idleSince = time.Time{}
		return Decision{Action: None}
	}
	if p.idleSince.IsZero() {
		p.idleSince = o.Now
	}
	if m, _, _ := p.shortage(o, forKeeping, nil); len(m.nodes) > 0 {
		// The forecast would ask for the cluster again before a new one
		// could be ready.
		return Decision{Action: None}
	}
	if o.Now.Sub(p.idleSince) < p.cfg.DeprovisionDelay {
		return Decision{Action: None}
	}
	return Decision{Action: RemoveCluster,
		Reason: fmt.Sprintf("no workload in the cloud cluster for %v", o.Now.Sub(p.idleSince))}
}

// IdleSince returns when the cloud cluster was first seen running no
// workload, or zero while it runs some.
func (p *Provisioner) IdleSince() time.Time { return p.idleSince }

// Restore carries over what a previous provisioner recorded (after a
// controller restart), so that the de-provisioning delay does not start
// again.
func (p *Provisioner) Restore(idleSince time.Time) { p.idleSince = idleSince }
