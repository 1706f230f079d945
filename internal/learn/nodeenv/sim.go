package nodeenv

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
	"github.com/meridian-dev/meridian/internal/sim/engine"
)

// Sim is a scenario being played: the cluster, the time, the pods to come
// and the metrics so far. Next advances to the next pod to place and Place
// binds it where a policy chose.
type Sim struct {
	sc      Scenario
	cl      *cluster.Cluster
	types   []PowerModel // per node
	index   map[*cluster.Node]int
	latency *Latency
	load    []podSpec
	arrived int
	now     time.Duration
	// leaves are the deletions and completions to come.
	leaves engine.Queue[*cluster.Pod]
	// pending are the pods no node could take, oldest first; retry is set
	// when a pod left since they were last tried.
	pending []*cluster.Pod
	retry   bool
	// cur is the pod to place, with the snapshot and mask Next built.
	cur    *cluster.Pod
	pod    learn.PodState
	nodes  []learn.NodeState
	mask   []bool
	nextID int64
	// running sums of the nodes' CPU allocation fraction and its square,
	// for the imbalance.
	sumU, sumU2 float64
	power       float64 // W, now
	active      int
	M           Metrics
}

// Metrics are a run's totals.
type Metrics struct {
	EnergyKWh       float64 `json:"energyKWh"`
	ActiveNodeHours float64 `json:"activeNodeHours"`
	// Imbalance is the time average of the standard deviation of the
	// nodes' CPU allocation fraction (requested over allocatable).
	Imbalance float64 `json:"imbalance"`
	// Decisions is the number of placements; SoftViolations and
	// HardViolations count those on a node beyond the pod's soft or hard
	// latency limit at the time of the decision.
	Decisions      int `json:"decisions"`
	SoftViolations int `json:"softViolations"`
	HardViolations int `json:"hardViolations"`
	// EverPending counts pods that had to wait for room; PendingAtEnd those
	// still waiting when the run ended.
	EverPending  int `json:"everPending"`
	PendingAtEnd int `json:"pendingAtEnd"`
	imbalanceInt float64
}

type podData struct {
	spec    podSpec
	pending bool
}

// NewSim builds the cluster and the load of sc.
func NewSim(sc Scenario) (*Sim, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(sc.Seed, 0x6e6f6465))
	s := &Sim{sc: sc}
	// Pods leaving at the same moment go in the order they came.
	s.leaves.Tie = func(a, b *cluster.Pod) int { return cmp.Compare(a.ID, b.ID) }
	nodes := make([]*cluster.Node, sc.Nodes)
	s.types = make([]PowerModel, sc.Nodes)
	for i := range nodes {
		// 40 % Haswell, 40 % Cascade Lake, 20 % Milan, in random order.
		t := NodeTypes[0]
		switch x := rng.Float64(); {
		case x >= 0.8:
			t = NodeTypes[2]
		case x >= 0.4:
			t = NodeTypes[1]
		}
		s.types[i] = t
		nodes[i] = cluster.NewNode(fmt.Sprintf("node-%04d", i), placement.Resources{
			MilliCPU: t.VCPUs * 1000, Memory: t.MemoryGiB << 30, Pods: 110})
	}
	s.cl = cluster.New("learn", nodes...)
	s.index = make(map[*cluster.Node]int, len(nodes))
	for i, n := range nodes {
		s.index[n] = i
	}
	s.latency = NewLatency(rng, sc.Nodes, 4, 30*time.Minute)
	var err error
	if s.load, err = sc.load(rng); err != nil {
		return nil, fmt.Errorf("failed to generate the %s load: %w", sc.Pattern, err)
	}
	s.nodes = make([]learn.NodeState, sc.Nodes)
	s.mask = make([]bool, sc.Nodes)
	for i, n := range nodes {
		s.nodes[i] = learn.NodeState{
			AllocatableMilliCPU: n.Allocatable.MilliCPU, AllocatableMemory: n.Allocatable.Memory,
			AllocatablePods: n.Allocatable.Pods, IdleWatts: s.types[i].IdleWatts, PeakWatts: s.types[i].PeakWatts,
		}
	}
	return s, nil
}

// Now is the simulated time.
func (s *Sim) Now() time.Duration { return s.now }

// advance moves the clock to t, integrating energy, active nodes and
// imbalance over the interval.
func (s *Sim) advance(t time.Duration) {
	if t <= s.now {
		return
	}
	h := (t - s.now).Hours()
	s.M.EnergyKWh += s.power * h / 1000
	s.M.ActiveNodeHours += float64(s.active) * h
	n := float64(s.sc.Nodes)
	mean := s.sumU / n
	s.M.imbalanceInt += math.Sqrt(math.Max(0, s.sumU2/n-mean*mean)) * h
	s.now = t
}

func (s *Sim) nodeIndex(n *cluster.Node) int { return s.index[n] }

// nodeWatts is node i's power now.
func (s *Sim) nodeWatts(i int) float64 {
	n := s.cl.Nodes[i]
	if n.Requested.Pods == 0 {
		return 0
	}
	return s.types[i].Watts(float64(n.Requested.MilliCPU) / float64(n.Allocatable.MilliCPU))
}

// change applies a change of node i's requests, keeping the running sums.
func (s *Sim) change(i int, r placement.Resources, sign int64) {
	n := s.cl.Nodes[i]
	u0 := float64(n.Requested.MilliCPU) / float64(n.Allocatable.MilliCPU)
	w0 := s.nodeWatts(i)
	wasActive := n.Requested.Pods > 0
	n.Requested.MilliCPU += sign * r.MilliCPU
	n.Requested.Memory += sign * r.Memory
	n.Requested.Pods += sign * r.Pods
	u1 := float64(n.Requested.MilliCPU) / float64(n.Allocatable.MilliCPU)
	s.sumU += u1 - u0
	s.sumU2 += u1*u1 - u0*u0
	s.power += s.nodeWatts(i) - w0
	switch isActive := n.Requested.Pods > 0; {
	case isActive && !wasActive:
		s.active++
	case !isActive && wasActive:
		s.active--
	}
	st := &s.nodes[i]
	st.RequestedMilliCPU, st.RequestedMemory, st.RequestedPods = n.Requested.MilliCPU, n.Requested.Memory, n.Requested.Pods
}

// Next advances to the next pod to place and returns false when the load
// is over. The pod, the snapshot and the mask are then Pod, Nodes and Mask;
// at least one node is feasible.
func (s *Sim) Next() bool {
	for {
		if s.retry {
			s.retry = false
			for k, p := range s.pending {
				if s.prepare(p) {
					s.pending = append(s.pending[:k], s.pending[k+1:]...)
					s.retry = true // the others are tried after this one
					return true
				}
			}
		}
		nextArrive := time.Duration(math.MaxInt64)
		if s.arrived < len(s.load) {
			nextArrive = s.load[s.arrived].arrive
		}
		nextLeave := time.Duration(math.MaxInt64)
		if at, ok := s.leaves.Next(); ok {
			nextLeave = at
		}
		end := s.sc.Duration
		if min(nextArrive, nextLeave) >= end {
			s.advance(end)
			s.M.PendingAtEnd = len(s.pending)
			if s.M.Decisions > 0 || s.now > 0 {
				s.M.Imbalance = s.M.imbalanceInt / s.now.Hours()
			}
			return false
		}
		if nextLeave <= nextArrive {
			at, pod := s.leaves.Pop()
			s.advance(at)
			s.remove(pod)
			continue
		}
		spec := s.load[s.arrived]
		s.arrived++
		s.advance(spec.arrive)
		p := &cluster.Pod{ID: s.nextID, Requests: placement.Resources{MilliCPU: spec.milliCPU, Memory: spec.memory, Pods: 1},
			Data: &podData{spec: spec}}
		s.nextID++
		if spec.leaveAt > 0 {
			s.leaves.Push(spec.leaveAt, p)
		}
		if s.prepare(p) {
			return true
		}
		p.Data.(*podData).pending = true
		s.M.EverPending++
		s.pending = append(s.pending, p)
	}
}

// remove deletes a pod, bound or pending.
func (s *Sim) remove(p *cluster.Pod) {
	d := p.Data.(*podData)
	if p.Node == nil {
		for k, q := range s.pending {
			if q == p {
				s.pending = append(s.pending[:k], s.pending[k+1:]...)
				break
			}
		}
		d.spec.leaveAt = -1 // gone: a pending Job must not start later
		return
	}
	s.change(s.nodeIndex(p.Node), p.Requests, -1)
	p.Node = nil
	s.retry = len(s.pending) > 0
}

// prepare builds the snapshot and the mask for p and reports whether a
// node can take it.
func (s *Sim) prepare(p *cluster.Pod) bool {
	d := p.Data.(*podData)
	if d.spec.leaveAt < 0 {
		return false
	}
	s.cur = p
	s.pod = learn.PodState{MilliCPU: d.spec.milliCPU, Memory: d.spec.memory, SoftLatencyMs: d.spec.soft, HardLatencyMs: d.spec.hard}
	any := false
	for i := range s.nodes {
		s.nodes[i].LatencyMs = s.latency.At(i, s.now)
		s.mask[i] = s.pod.Feasible(&s.nodes[i])
		any = any || s.mask[i]
	}
	return any
}

// Pod is the pod to place.
func (s *Sim) Pod() *learn.PodState { return &s.pod }

// Nodes is the snapshot of every node for the pod to place.
func (s *Sim) Nodes() []learn.NodeState { return s.nodes }

// Mask says which nodes may take the pod.
func (s *Sim) Mask() []bool { return s.mask }

// Place binds the pod to node i and returns the change of cluster power in
// watts and of the CPU-allocation standard deviation it caused.
func (s *Sim) Place(i int) (dWatts, dImbalance float64) {
	if i < 0 || i >= len(s.mask) || !s.mask[i] {
		panic(fmt.Sprintf("nodeenv: node %d is not feasible for the pod", i))
	}
	std0 := s.std()
	w0 := s.power
	p := s.cur
	s.cur = nil
	p.Node = s.cl.Nodes[i]
	s.change(i, p.Requests, 1)
	d := p.Data.(*podData)
	if d.spec.leaveAt == 0 {
		s.leaves.Push(s.now+d.spec.runFor, p)
	}
	s.M.Decisions++
	lat := s.nodes[i].LatencyMs
	if s.pod.SoftLatencyMs > 0 && lat > s.pod.SoftLatencyMs {
		s.M.SoftViolations++
	}
	if s.pod.HardLatencyMs > 0 && lat > s.pod.HardLatencyMs {
		s.M.HardViolations++
	}
	return s.power - w0, s.std() - std0
}

func (s *Sim) std() float64 {
	n := float64(s.sc.Nodes)
	mean := s.sumU / n
	return math.Sqrt(math.Max(0, s.sumU2/n-mean*mean))
}
