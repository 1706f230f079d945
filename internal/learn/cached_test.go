package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func randomNode(r *rand.Rand) NodeState {
	alloc := []int64{16000, 32000, 64000}[r.IntN(3)]
	n := NodeState{AllocatableMilliCPU: alloc, RequestedMilliCPU: r.Int64N(alloc + 1),
		AllocatableMemory: alloc << 22, RequestedMemory: r.Int64N(alloc<<22 + 1), AllocatablePods: 110,
		LatencyMs: r.Float64() * 50, IdleWatts: 50 + r.Float64()*100, PeakWatts: 150 + r.Float64()*100}
	if r.IntN(4) > 0 {
		n.RequestedPods = 1 + r.Int64N(110)
	} else {
		n.RequestedMilliCPU, n.RequestedMemory = 0, 0
	}
	return n
}

// TestCachedScorerMatchesScorer checks that the cached scorer's Q-values
// and mask are the network's (Scorer's) at sizes around its chunk size,
// for networks of any depth, after nodes change, are added and removed,
// and whatever the number of workers.
func TestCachedScorerMatchesScorer(t *testing.T) {
	tests := []struct {
		hidden []int
		rows   []int
	}{
		{hidden: DefaultHidden, rows: []int{1, 3, chunkRows - 1, chunkRows, chunkRows + 1, 2000}},
		{hidden: []int{16}, rows: []int{5, 1100}},
		{hidden: nil, rows: []int{7, 600}},
		{hidden: []int{6, 5, 4}, rows: []int{9, 1300}},
	}
	pods := []PodState{
		{MilliCPU: 500, Memory: 1 << 30},
		{MilliCPU: 2000, Memory: 4 << 30, SoftLatencyMs: 20, HardLatencyMs: 30},
		{MilliCPU: 40000, Memory: 100 << 30, SoftLatencyMs: 10},
	}
	for _, tc := range tests {
		for _, rows := range tc.rows {
			t.Run(fmt.Sprintf("%v/%d", tc.hidden, rows), func(t *testing.T) {
				m, err := NewModel(tc.hidden, 3)
				if err != nil {
					t.Fatal(err)
				}
				r := rand.New(rand.NewPCG(uint64(rows), 5))
				for i := range m.Net.Params { // non-zero biases too
					m.Net.Params[i] += r.NormFloat64() * 0.1
				}
				nodes := make([]NodeState, rows)
				for i := range nodes {
					nodes[i] = randomNode(r)
				}
				cs := NewCachedScorer(m)
				cs.Resize(rows)
				for i := range nodes {
					cs.Set(i, &nodes[i])
				}
				check := func(step string) {
					t.Helper()
					for _, pod := range pods {
						want, wantMask := make([]float64, len(nodes)), make([]bool, len(nodes))
						NewScorer(m).Score(&pod, nodes, want, wantMask)
						got, gotMask := make([]float64, len(nodes)), make([]bool, len(nodes))
						cs.Score(&pod, got, gotMask)
						if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool {
							return math.Abs(a-b) <= 1e-9*(1+math.Abs(a))
						})); diff != "" {
							t.Errorf("%s, pod %+v: Q-values (-Scorer +CachedScorer):\n%s", step, pod, diff)
						}
						if diff := cmp.Diff(wantMask, gotMask); diff != "" {
							t.Errorf("%s, pod %+v: mask (-Scorer +CachedScorer):\n%s", step, pod, diff)
						}
					}
				}
				check("first set")
				for range 1 + rows/10 {
					i := r.IntN(rows)
					nodes[i] = randomNode(r)
					cs.Set(i, &nodes[i])
				}
				check("after changes")
				nodes = append(nodes, randomNode(r), randomNode(r))
				cs.Resize(len(nodes))
				cs.Set(len(nodes)-2, &nodes[len(nodes)-2])
				cs.Set(len(nodes)-1, &nodes[len(nodes)-1])
				check("grown")
				nodes = nodes[:len(nodes)-3]
				cs.Resize(len(nodes))
				if len(nodes) > 0 {
					check("shrunk")
				}
			})
		}
	}
}

// TestCachedScorerIndependentOfWorkers checks that the Q-values are the
// same, bit for bit, on one goroutine and on several.
func TestCachedScorerIndependentOfWorkers(t *testing.T) {
	m, _ := NewModel(DefaultHidden, 4)
	r := rand.New(rand.NewPCG(6, 6))
	cs := NewCachedScorer(m)
	cs.Resize(5 * chunkRows)
	for i := range cs.Len() {
		n := randomNode(r)
		cs.Set(i, &n)
	}
	pod := &PodState{MilliCPU: 1000, Memory: 2 << 30, SoftLatencyMs: 20, HardLatencyMs: 30}
	score := func(procs int) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		q := make([]float64, cs.Len())
		cs.Score(pod, q, nil)
		return q
	}
	if diff := cmp.Diff(score(1), score(4)); diff != "" {
		t.Errorf("Q-values (-1 worker +4 workers):\n%s", diff)
	}
}

// BenchmarkCachedScore5000Nodes is the time to score 5,000 nodes for one
// pod with CachedScorer when a few nodes changed since the last pod (the
// one the last pod went to, as in a scheduler), with the normalisation to
// kube-scheduler's scores: compare with BenchmarkScore5000Nodes.
func BenchmarkCachedScore5000Nodes(b *testing.B) {
	for _, hidden := range [][]int{DefaultHidden, {16, 8}} {
		b.Run(fmt.Sprint(hidden), func(b *testing.B) {
			m, _ := NewModel(hidden, 1)
			r := rand.New(rand.NewPCG(1, 1))
			cs := NewCachedScorer(m)
			cs.Resize(5000)
			for i := range cs.Len() {
				n := randomNode(r)
				cs.Set(i, &n)
			}
			pod := &PodState{MilliCPU: 250, Memory: 64 << 20, SoftLatencyMs: 20, HardLatencyMs: 30}
			q := make([]float64, cs.Len())
			mask := make([]bool, cs.Len())
			out := make([]int64, cs.Len())
			b.ReportAllocs()
			for b.Loop() {
				i := r.IntN(cs.Len())
				n := *cs.Node(i)
				n.RequestedPods++
				n.RequestedMilliCPU += pod.MilliCPU
				cs.Set(i, &n)
				cs.Score(pod, q, mask)
				NormalizeScores(q, mask, 100, out)
			}
		})
	}
}
