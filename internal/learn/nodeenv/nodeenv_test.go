package nodeenv

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meridian-dev/meridian/internal/learn"
)

const gi = int64(1) << 30

func node(cpu, reqCPU, memGi, reqMemGi int64) learn.NodeState {
	return learn.NodeState{AllocatableMilliCPU: cpu, RequestedMilliCPU: reqCPU, AllocatableMemory: memGi * gi,
		RequestedMemory: reqMemGi * gi, AllocatablePods: 110}
}

func TestKubeSchedulerScoring(t *testing.T) {
	pod := &learn.PodState{MilliCPU: 1000, Memory: 2 * gi}
	// node 0: empty small; node 1: half full big; node 2: CPU-heavy.
	nodes := []learn.NodeState{node(4000, 0, 8, 0), node(16000, 8000, 32, 16), node(8000, 6000, 32, 2)}
	all := []bool{true, true, true}
	// A memory-heavy pod improves the CPU-heavy node's balance.
	memPod := &learn.PodState{MilliCPU: 100, Memory: 12 * gi}
	memNodes := []learn.NodeState{node(4000, 0, 16, 0), node(8000, 6000, 32, 2)}
	tests := []struct {
		name   string
		policy Policy
		pod    *learn.PodState
		nodes  []learn.NodeState
		mask   []bool
		want   int
	}{
		// LeastAllocated: (75+75)/2=75, (43+43)/2=43, (12+87)/2=49.
		{name: "LeastAllocated takes the emptiest", policy: LeastAllocated(), pod: pod, nodes: nodes, mask: all, want: 0},
		// MostAllocated: 25, (56+56)/2=56, (87+12)/2=49.
		{name: "MostAllocated takes the fullest", policy: MostAllocated(), pod: pod, nodes: nodes, mask: all, want: 1},
		{name: "MostAllocated skips a masked node", policy: MostAllocated(), pod: pod, nodes: nodes, mask: []bool{true, false, true}, want: 2},
		// Nodes 0 and 1 stay balanced (75 each, the first wins); the pod
		// unbalances node 2 further (below 75).
		{name: "BalancedAllocation avoids unbalancing", policy: BalancedAllocation(), pod: pod, nodes: nodes, mask: all, want: 0},
		// node 0 goes from 100 to 100-|0.025-0.75|/2*100 (63, score 56);
		// node 1 from 65 to 84 (score 84).
		{name: "BalancedAllocation prefers the node the pod balances", policy: BalancedAllocation(), pod: memPod, nodes: memNodes, mask: []bool{true, true}, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.Choose(tc.pod, tc.nodes, tc.mask); got != tc.want {
				t.Errorf("%s chose node %d, want %d", tc.policy.Name(), got, tc.want)
			}
		})
	}
}

func TestPowerModel(t *testing.T) {
	for _, p := range NodeTypes {
		t.Run(p.Name, func(t *testing.T) {
			if diff := cmp.Diff([]float64{p.IdleWatts, p.PeakWatts}, []float64{p.Watts(0), p.Watts(1)}, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Watts(0), Watts(1) (-want +got):\n%s", diff)
			}
			prev := p.Watts(0)
			for u := 0.05; u <= 1; u += 0.05 {
				w := p.Watts(u)
				linear := p.IdleWatts + (p.PeakWatts-p.IdleWatts)*u
				if w < prev || w < linear-1e-9 {
					t.Fatalf("Watts(%g) = %g: must rise and lie above the line (%g)", u, w, linear)
				}
				prev = w
			}
		})
	}
}

func TestRunIsDeterministicAndKeepsTheHardLimit(t *testing.T) {
	m, _ := learn.NewModel(learn.DefaultHidden, 3)
	for _, pattern := range Patterns {
		t.Run(pattern, func(t *testing.T) {
			sc := Scenario{Nodes: 12, Pattern: pattern, Duration: 10 * time.Minute, Seed: 5, SensitiveShare: 0.5}
			for _, p := range []Policy{NewModelPolicy("untrained", m), LeastAllocated(), MostAllocated(), BalancedAllocation()} {
				a, err := Run(sc, p, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := Run(sc, p, time.Minute)
				if diff := cmp.Diff(a.Metrics, b.Metrics, cmp.AllowUnexported(Metrics{})); diff != "" {
					t.Errorf("%s: second run's metrics (-want +got):\n%s", p.Name(), diff)
				}
				if a.Metrics.Decisions == 0 || a.Metrics.EnergyKWh <= 0 {
					t.Errorf("%s: %d decisions and %g kWh, want some", p.Name(), a.Metrics.Decisions, a.Metrics.EnergyKWh)
				}
				if a.Metrics.HardViolations != 0 {
					t.Errorf("%s: %d hard-latency violations, want 0 (the limit is the mask)", p.Name(), a.Metrics.HardViolations)
				}
			}
		})
	}
}

func TestEnergyAccounting(t *testing.T) {
	// One pod on one node for the whole run: energy is that node's power
	// times the time.
	sc := Scenario{Nodes: 1, Pattern: PatternTrace, Duration: time.Hour, Seed: 1}
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.load = []podSpec{{arrive: 0, milliCPU: 1000, memory: gi, leaveAt: 2 * time.Hour}}
	for s.Next() {
		dw, _ := s.Place(0)
		want := s.types[0].Watts(1000 / float64(s.types[0].VCPUs*1000))
		if math.Abs(dw-want) > 1e-9 {
			t.Errorf("power rise %g W, want %g W", dw, want)
		}
	}
	want := s.types[0].Watts(1/float64(s.types[0].VCPUs)) / 1000
	if math.Abs(s.M.EnergyKWh-want) > 1e-9 || math.Abs(s.M.ActiveNodeHours-1) > 1e-9 {
		t.Errorf("energy %g kWh and %g active node-hours, want %g and 1", s.M.EnergyKWh, s.M.ActiveNodeHours, want)
	}
}

func TestTrainingIsDeterministicAndLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for seconds")
	}
	cfg := learn.DefaultTrainConfig()
	cfg.Steps = 3000
	cfg.WarmUp = 300
	cur := DefaultCurriculum()
	cur.Duration = 10 * time.Minute
	a, err := Train(RewardEE, cfg, cur, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(RewardEE, cfg, cur, 0, nil)
	if diff := cmp.Diff(a.Net.Params, b.Net.Params); diff != "" {
		t.Fatalf("second training's weights differ (-want +got):\n%s", diff)
	}
	// On a held-out scenario, the reduced training already uses less
	// energy than spreading pods.
	sc := Scenario{Nodes: 15, Pattern: PatternTrace, Duration: 30 * time.Minute, Seed: 99, SensitiveShare: 0.5}
	model, _ := Run(sc, NewModelPolicy("EE", a), time.Minute)
	least, _ := Run(sc, LeastAllocated(), time.Minute)
	if model.Metrics.EnergyKWh >= 0.9*least.Metrics.EnergyKWh {
		t.Errorf("EE model used %.3f kWh, LeastAllocated %.3f: want at least 10 %% less", model.Metrics.EnergyKWh, least.Metrics.EnergyKWh)
	}
}
