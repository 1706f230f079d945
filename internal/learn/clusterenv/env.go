package clusterenv

import (
	"context"
	"fmt"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins/learned"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// RewardCloudPending is the reward of the cluster model: minus the cloud
// CPU and the unplaced CPU, in core-minutes, that accrue from one decision
// to the next, the unplaced counted PendingWeight times. Both are physical
// quantities of the run, not a heuristic's choice; a placement is paid for
// by what follows it (the cloud it forces later workloads into, the
// replicas it leaves without room), which the discount carries back.
const RewardCloudPending = "cloud-pending"

// PendingWeight is how much more a core-minute of unplaced replicas costs
// than one in the cloud: a replica that runs in the cloud serves, one that
// waits does not.
const PendingWeight = 2.0

// reward is the reward of a cost.
func reward(c Cost) float64 {
	return -60 * (c.CloudCoreHours + PendingWeight*c.PendingCoreHours)
}

// Env is a Sim as a learn.Env for a cluster model: each decision's rows are
// the candidate clusters (learned.State), the agent's choice is put first
// by the real placement framework, which divides the replicas with the
// model ordering the other clusters, and the reward is the cost until the
// next decision.
type Env struct {
	Sim    *Sim
	fw     *placement.Framework
	st     *steer
	x      []float64
	wl     []float64
	mask   []bool
	states []learn.ClusterState
	ok     bool
	primed bool
}

var _ learn.Env = &Env{}

// NewEnv returns the environment of sc's workload for seed, whose
// framework orders the clusters the agent does not choose with m, the
// model being trained.
func NewEnv(sc *scenario.Scenario, seed uint64, m *learn.ClusterModel) (*Env, error) {
	s, err := NewSim(sc, seed)
	if err != nil {
		return nil, err
	}
	st := &steer{}
	fw, err := newSteeredFramework(m, st)
	if err != nil {
		return nil, err
	}
	return &Env{Sim: s, fw: fw, st: st, wl: make([]float64, len(learn.WorkloadColumns))}, nil
}

// Observe implements learn.Env.
func (e *Env) Observe() ([]float64, int, []float64, []bool, bool) {
	if !e.primed {
		e.ok = e.Sim.Next()
		e.Sim.TakeCost() // before the first decision nothing was decided
		e.primed = true
	}
	if !e.ok {
		return nil, 0, nil, nil, false
	}
	w := e.Sim.Workload()
	cands := e.Sim.Candidates()
	fc := len(learn.ClusterColumns)
	e.x = grow(e.x, len(cands)*fc)
	e.mask = e.mask[:0]
	e.states = e.states[:0]
	ws := learned.Workload(w)
	for i, c := range cands {
		st := learned.State(w, c)
		learn.EncodeCluster(e.x[i*fc:i*fc+fc], &st, &ws)
		e.mask = append(e.mask, st.Feasible())
	}
	learn.EncodeWorkload(e.wl, &ws)
	return e.x, len(cands), e.wl, e.mask, true
}

// Step implements learn.Env: the framework places the workload with
// candidate a first, and the run goes on to the next decision.
func (e *Env) Step(a int) float64 {
	e.st.chosen = e.Sim.Candidates()[a].Name
	d, err := e.fw.Place(context.Background(), e.Sim.Snapshot(), e.Sim.Workload())
	if err != nil {
		panic(fmt.Sprintf("clusterenv: placing a workload: %v", err))
	}
	if err := e.Sim.Apply(d); err != nil {
		panic(fmt.Sprintf("clusterenv: applying a decision: %v", err))
	}
	e.ok = e.Sim.Next()
	return reward(e.Sim.TakeCost())
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
