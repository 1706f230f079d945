package learn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBestRespectsMask(t *testing.T) {
	tests := []struct {
		name string
		q    []float64
		mask []bool
		want int
	}{
		{name: "the best Q is masked", q: []float64{5, 1, 3}, mask: []bool{false, true, true}, want: 2},
		{name: "nothing feasible", q: []float64{5, 1}, mask: []bool{false, false}, want: -1},
		{name: "first among equals", q: []float64{2, 2, 1}, mask: []bool{true, true, true}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Best(tc.q, tc.mask); got != tc.want {
				t.Errorf("Best = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestScorerMask(t *testing.T) {
	m, _ := NewModel([]int{16, 8}, 1)
	s := NewScorer(m)
	pod := &PodState{MilliCPU: 500, Memory: 1 << 30, SoftLatencyMs: 20, HardLatencyMs: 30}
	node := func(reqCPU int64, lat float64) NodeState {
		return NodeState{AllocatableMilliCPU: 4000, RequestedMilliCPU: reqCPU, AllocatableMemory: 8 << 30,
			AllocatablePods: 110, RequestedPods: 1, LatencyMs: lat, IdleWatts: 50, PeakWatts: 150}
	}
	nodes := []NodeState{node(0, 10), node(3800, 10), node(0, 31), node(0, 30)}
	q := make([]float64, len(nodes))
	mask := make([]bool, len(nodes))
	s.Score(pod, nodes, q, mask)
	if diff := cmp.Diff([]bool{true, false, false, true}, mask); diff != "" {
		t.Errorf("mask (-want +got):\n%s", diff)
	}
	out := make([]int64, len(nodes))
	NormalizeScores(q, mask, 100, out)
	if out[1] != 0 || out[2] != 0 || max(out[0], out[3]) != 100 {
		t.Errorf("normalized scores %v: infeasible nodes must get 0 and the best feasible 100", out)
	}
}

// BenchmarkScore5000Nodes is the time to score 5,000 nodes for one pod:
// encoding the rows, the mask, the forward pass and the normalisation to
// kube-scheduler's scores, as a Score plugin does per scheduling cycle.
func BenchmarkScore5000Nodes(b *testing.B) {
	for _, hidden := range [][]int{DefaultHidden, {16, 8}} {
		b.Run(fmt.Sprint(hidden), func(b *testing.B) { benchmarkScore(b, hidden) })
	}
}

func benchmarkScore(b *testing.B, hidden []int) {
	m, _ := NewModel(hidden, 1)
	s := NewScorer(m)
	r := rand.New(rand.NewPCG(1, 1))
	nodes := make([]NodeState, 5000)
	for i := range nodes {
		nodes[i] = NodeState{AllocatableMilliCPU: 32000, RequestedMilliCPU: r.Int64N(32000),
			AllocatableMemory: 128 << 30, RequestedMemory: r.Int64N(128 << 30), AllocatablePods: 110,
			RequestedPods: r.Int64N(110), LatencyMs: r.Float64() * 50, IdleWatts: 70, PeakWatts: 170}
	}
	pod := &PodState{MilliCPU: 250, Memory: 64 << 20, SoftLatencyMs: 20, HardLatencyMs: 30}
	q := make([]float64, len(nodes))
	mask := make([]bool, len(nodes))
	out := make([]int64, len(nodes))
	b.ReportAllocs()
	for b.Loop() {
		s.Score(pod, nodes, q, mask)
		NormalizeScores(q, mask, 100, out)
	}
}
