package nodeenv

import (
	"github.com/meridian-dev/meridian/internal/learn"
)

// Env is a Sim as a learn.Env: it encodes each decision's rows and rewards
// placements with Reward.
type Env struct {
	Sim    *Sim
	Reward string
	x      []float64
	pod    []float64
	ok     bool
	primed bool
}

var _ learn.Env = &Env{}

// NewEnv returns the environment of sc with the reward kind.
func NewEnv(sc Scenario, kind string) (*Env, error) {
	if err := ValidateReward(kind); err != nil {
		return nil, err
	}
	s, err := NewSim(sc)
	if err != nil {
		return nil, err
	}
	return &Env{Sim: s, Reward: kind, x: make([]float64, sc.Nodes*len(learn.NodeColumns)), pod: make([]float64, len(learn.PodColumns))}, nil
}

// Observe implements learn.Env.
func (e *Env) Observe() ([]float64, int, []float64, []bool, bool) {
	if !e.primed {
		e.ok = e.Sim.Next()
		e.primed = true
	}
	if !e.ok {
		return nil, 0, nil, nil, false
	}
	fn := len(learn.NodeColumns)
	pod := e.Sim.Pod()
	for i := range e.Sim.nodes {
		learn.EncodeNode(e.x[i*fn:i*fn+fn], &e.Sim.nodes[i], pod)
	}
	learn.EncodePod(e.pod, pod)
	return e.x, len(e.Sim.nodes), e.pod, e.Sim.mask, true
}

// Step implements learn.Env.
func (e *Env) Step(a int) float64 {
	n := e.Sim.nodes[a]
	o := outcome{IdleWatts: n.IdleWatts, Woke: !n.Active(),
		CPUShare:  float64(e.Sim.pod.MilliCPU) / float64(n.AllocatableMilliCPU),
		LatencyMs: n.LatencyMs, SoftMs: e.Sim.pod.SoftLatencyMs}
	o.DWatts, o.DImbalance = e.Sim.Place(a)
	e.primed = false
	return reward(e.Reward, o)
}
