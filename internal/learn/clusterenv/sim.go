package clusterenv

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
	"github.com/meridian-dev/meridian/internal/sim/engine"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

// Sim plays a scenario's workload on its member clusters and cloud, one
// placement decision per task (and per retry of a task's unplaced
// replicas). Next prepares a decision (the snapshot, the workload, the
// candidate clusters the framework's filters let through); Apply carries out
// the framework's decision for it and Next then advances the clock to the
// following one.
type Sim struct {
	sc       *scenario.Scenario
	clusters []*cluster.Cluster // members in the scenario's order, then the cloud
	cloud    int                // index of the cloud in clusters, or -1
	info     []placement.Cluster
	latency  placement.Latency
	filters  []placement.FilterPlugin
	tasks    []workload.Task
	arrived  int
	now      time.Duration
	leaves   engine.Queue[leave]
	// pending are tasks with replicas no cluster could take, oldest first;
	// retry is set when room was freed since they were last tried.
	pending []*task
	retry   bool
	nextID  int64

	cur   *task
	snap  *placement.Snapshot
	w     placement.Workload
	cands []*placement.ClusterInfo

	// cost is what advance accumulated since the last Cost call.
	cost Cost
	M    Metrics
}

// Metrics are a run's totals.
type Metrics struct {
	// CloudCoreHours is the CPU requested in the cloud cluster times the
	// hours it was requested.
	CloudCoreHours float64 `json:"cloudCoreHours"`
	// PendingCoreHours and PendingReplicaHours are the unplaced replicas
	// (in cores, and in replicas) times the hours they waited; MaxPending
	// the most replicas unplaced at once.
	PendingCoreHours    float64 `json:"pendingCoreHours"`
	PendingReplicaHours float64 `json:"pendingReplicaHours"`
	MaxPending          int     `json:"maxPending"`
	// Imbalance is the time average of the standard deviation of the
	// member clusters' CPU allocation (requested over allocatable).
	Imbalance float64 `json:"imbalance"`
	Decisions int     `json:"decisions"`
	imbInt    float64
}

// Cost is what the placements cost over an interval: the physical
// quantities rewards are written from.
type Cost struct {
	CloudCoreHours   float64
	PendingCoreHours float64
}

type task struct {
	spec workload.Task
	// remaining are the replicas still to place.
	remaining int32
	gone      bool
	// pods are a Deployment's placed replicas, deleted with it.
	pods []*cluster.Pod
}

type leave struct {
	at   time.Duration
	pods []*cluster.Pod
	t    *task // a Deployment's deletion also ends its unplaced replicas
}

// cloudFlavor is the cloud cluster's node: the largest of the scenario's
// flavors, and MaxNodes of them are there from the start, so that the cost
// of bursting is its CPU and not the provisioner's delays, which no
// placement changes.
func cloudNodes(c *scenario.Cloud) (placement.Resources, int, float64) {
	var best scenario.Flavor
	for _, f := range c.Flavors {
		if f.CPU.MilliValue() > best.CPU.MilliValue() {
			best = f
		}
	}
	pods := best.Pods
	if pods == 0 {
		pods = 110
	}
	n := c.MaxNodes
	if n == 0 {
		n = 20
	}
	// The price is a feature of the learned scorer, not a decision on
	// money: a float is enough.
	price := 0.0
	if cores := float64(best.CPU.MilliValue()) / 1000; cores > 0 && best.PricePerHour != nil {
		price = best.PricePerHour.Amount.AsApproximateFloat64() / cores
	}
	return placement.Resources{MilliCPU: best.CPU.MilliValue(), Memory: best.Memory.Value(), Pods: pods}, n, price
}

// NewSim builds the clusters of sc and its tasks for seed.
func NewSim(sc *scenario.Scenario, seed uint64) (*Sim, error) {
	tasks, err := sc.Tasks(seed)
	if err != nil {
		return nil, err
	}
	s := &Sim{sc: sc, tasks: tasks, cloud: -1, latency: placement.Latency{}}
	for _, c := range sc.Clusters {
		cl := cluster.New(c.Name)
		for _, pool := range c.Nodes {
			pods := pool.Pods
			if pods == 0 {
				pods = 110
			}
			for range pool.Count {
				cl.Nodes = append(cl.Nodes, cluster.NewNode(fmt.Sprintf("%s-node-%d", c.Name, len(cl.Nodes)+1),
					placement.Resources{MilliCPU: pool.CPU.MilliValue(), Memory: pool.Memory.Value(), Pods: pods}))
			}
		}
		s.clusters = append(s.clusters, cl)
		s.info = append(s.info, placement.Cluster{Name: c.Name, Labels: c.Labels, Region: c.Region, Provider: c.Provider, Ready: true})
	}
	if sc.Cloud != nil {
		alloc, n, price := cloudNodes(sc.Cloud)
		cl := cluster.New(sc.Cloud.Name)
		for i := range n {
			cl.Nodes = append(cl.Nodes, cluster.NewNode(fmt.Sprintf("%s-node-%d", sc.Cloud.Name, i+1), alloc))
		}
		s.cloud = len(s.clusters)
		s.clusters = append(s.clusters, cl)
		s.info = append(s.info, placement.Cluster{Name: sc.Cloud.Name, Region: sc.Cloud.Region, Provider: sc.Cloud.Provider,
			Cloud: true, Ready: true, Prices: placement.Prices{CPUHour: price}})
	}
	for a, row := range sc.LatencyMs {
		for b, ms := range row {
			d := time.Duration(ms * float64(time.Millisecond))
			for _, p := range [][2]string{{a, b}, {b, a}} {
				if s.latency[p[0]] == nil {
					s.latency[p[0]] = map[string]time.Duration{}
				}
				s.latency[p[0]][p[1]] = d
			}
		}
	}
	reg := plugins.NewRegistry()
	for _, name := range plugins.Profiles()[0].Filters {
		p, err := reg[name]()
		if err != nil {
			return nil, fmt.Errorf("failed to create filter %q: %w", name, err)
		}
		s.filters = append(s.filters, p.(placement.FilterPlugin))
	}
	return s, nil
}

// Now is the simulated time.
func (s *Sim) Now() time.Duration { return s.now }

// advance moves the clock to t, accumulating the costs and the imbalance.
func (s *Sim) advance(t time.Duration) {
	if t <= s.now {
		return
	}
	h := (t - s.now).Hours()
	var cloud, pendingCores float64
	var pendingReplicas int
	if s.cloud >= 0 {
		cloud = float64(s.clusters[s.cloud].Assigned().MilliCPU) / 1000
	}
	for _, p := range s.pending {
		pendingCores += float64(p.remaining) * float64(p.spec.MilliCPU) / 1000
		pendingReplicas += int(p.remaining)
	}
	s.cost.CloudCoreHours += cloud * h
	s.cost.PendingCoreHours += pendingCores * h
	s.M.CloudCoreHours += cloud * h
	s.M.PendingCoreHours += pendingCores * h
	s.M.PendingReplicaHours += float64(pendingReplicas) * h
	s.M.imbInt += s.imbalance() * h
	s.now = t
}

// imbalance is the standard deviation of the members' CPU allocation.
func (s *Sim) imbalance() float64 {
	var sum, sum2, n float64
	for i, c := range s.clusters {
		if i == s.cloud {
			continue
		}
		a := c.Allocatable().MilliCPU
		if a == 0 {
			continue
		}
		u := float64(c.Assigned().MilliCPU) / float64(a)
		sum, sum2, n = sum+u, sum2+u*u, n+1
	}
	if n == 0 {
		return 0
	}
	m := sum / n
	return math.Sqrt(math.Max(0, sum2/n-m*m))
}

// TakeCost returns the cost accumulated since the last call and resets it.
func (s *Sim) TakeCost() Cost {
	c := s.cost
	s.cost = Cost{}
	return c
}

// Next advances to the next decision and returns false when the run is
// over. The decision is then Snapshot, Workload and Candidates; at least
// one candidate can take a replica.
func (s *Sim) Next() bool {
	for {
		if s.retry {
			s.retry = false
			for k, t := range s.pending {
				if s.prepare(t) {
					s.pending = slices.Delete(s.pending, k, k+1)
					s.retry = true // the others are tried after this one
					return true
				}
			}
		}
		nextArrive := time.Duration(math.MaxInt64)
		if s.arrived < len(s.tasks) {
			nextArrive = s.tasks[s.arrived].Submit
		}
		nextLeave := time.Duration(math.MaxInt64)
		if at, ok := s.leaves.Next(); ok {
			nextLeave = at
		}
		if min(nextArrive, nextLeave) >= s.sc.Duration {
			s.advance(s.sc.Duration)
			if s.now > 0 {
				s.M.Imbalance = s.M.imbInt / s.now.Hours()
			}
			return false
		}
		if nextLeave <= nextArrive {
			_, l := s.leaves.Pop()
			s.advance(l.at)
			s.remove(l)
			continue
		}
		spec := s.tasks[s.arrived]
		s.arrived++
		s.advance(spec.Submit)
		t := &task{spec: spec, remaining: spec.Replicas}
		if spec.Kind == placement.KindDeployment {
			s.push(leave{at: spec.Submit + spec.Duration, t: t})
		}
		if s.prepare(t) {
			return true
		}
		s.queue(t)
	}
}

func (s *Sim) push(l leave) {
	s.leaves.Push(l.at, l)
}

func (s *Sim) queue(t *task) {
	s.pending = append(s.pending, t)
	n := 0
	for _, p := range s.pending {
		n += int(p.remaining)
	}
	s.M.MaxPending = max(s.M.MaxPending, n)
}

// remove deletes pods (a Job's completed replicas or a Deployment's), and
// a deleted Deployment's unplaced replicas.
func (s *Sim) remove(l leave) {
	for _, p := range l.pods {
		p.Cluster.DeletePod(p)
	}
	if l.t != nil {
		l.t.gone = true
		for _, p := range l.t.pods {
			p.Cluster.DeletePod(p)
		}
		s.pending = slices.DeleteFunc(s.pending, func(p *task) bool { return p == l.t })
	}
	s.retry = len(s.pending) > 0
}

// prepare builds the snapshot, the workload and the candidates for t's
// remaining replicas and reports whether some candidate can take one.
func (s *Sim) prepare(t *task) bool {
	if t.gone || t.remaining <= 0 {
		return false
	}
	clusters := make([]placement.Cluster, len(s.clusters))
	for i, c := range s.clusters {
		clusters[i] = s.info[i]
		clusters[i].Nodes = make([]placement.Node, len(c.Nodes))
		for j, n := range c.Nodes {
			clusters[i].Nodes[j] = placement.Node{Name: n.Name, Allocatable: n.Allocatable, Requested: n.Requested, Unschedulable: n.Unschedulable}
		}
	}
	s.snap = placement.NewSnapshot(clusters, s.latency, nil)
	s.w = placement.Workload{
		Key: "default/" + t.spec.Name, Kind: t.spec.Kind, Replicas: t.remaining,
		PodRequests: placement.Resources{MilliCPU: t.spec.MilliCPU, Memory: t.spec.Memory, Pods: 1},
		Policy:      slot, Bursting: true,
	}
	if t.spec.Location != "" {
		s.w.Locations = []string{t.spec.Location}
	}
	s.cands = s.cands[:0]
	feasible := false
	for _, c := range s.snap.Clusters {
		if !s.pass(c) {
			continue
		}
		s.cands = append(s.cands, c)
		feasible = feasible || c.FitsOne(s.w.PodRequests, nil)
	}
	if feasible {
		s.cur = t
	}
	return feasible
}

func (s *Sim) pass(c *placement.ClusterInfo) bool {
	for _, f := range s.filters {
		if st := f.Filter(context.Background(), &s.w, c); !st.IsSuccess() {
			return false
		}
	}
	return true
}

// Snapshot is the snapshot of the decision.
func (s *Sim) Snapshot() *placement.Snapshot { return s.snap }

// Workload is the workload of the decision: the task's replicas still to
// place.
func (s *Sim) Workload() *placement.Workload { return &s.w }

// Candidates are the clusters the framework's filters let through, in
// name order.
func (s *Sim) Candidates() []*placement.ClusterInfo { return s.cands }

// Apply carries out a decision for the current workload: its assignments
// become pods in their clusters, its unplaced replicas wait.
func (s *Sim) Apply(d *placement.Decision) error {
	t := s.cur
	if t == nil {
		return fmt.Errorf("no decision to apply")
	}
	s.cur = nil
	s.M.Decisions++
	var placed int32
	for _, a := range d.Assignments {
		i := slices.IndexFunc(s.info, func(c placement.Cluster) bool { return c.Name == a.Cluster })
		if i < 0 {
			return fmt.Errorf("decision assigns %d replicas to unknown cluster %q", a.Replicas, a.Cluster)
		}
		var pods []*cluster.Pod
		for range a.Replicas {
			p := &cluster.Pod{ID: s.nextID, Workload: s.w.Key, Requests: s.w.PodRequests, Data: t}
			s.nextID++
			s.clusters[i].AddPod(p)
			pods = append(pods, p)
		}
		placed += a.Replicas
		if t.spec.Kind == placement.KindJob {
			s.push(leave{at: s.now + t.spec.Duration, pods: pods})
		} else {
			t.pods = append(t.pods, pods...)
		}
	}
	t.remaining -= placed
	if t.remaining > 0 {
		s.queue(t)
	}
	return nil
}
