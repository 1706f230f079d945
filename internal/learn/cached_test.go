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
// and mask are the network's (Scorer's, the reference forward pass) at
// sizes around its chunk size, for networks of any depth, after nodes
// change, are added and removed, for more pod shapes than it keeps, in
// turn and again (so that a kept shape must follow the nodes that changed
// since it was last used), with the processor's fused multiply-add and
// with the Go loop.
func TestCachedScorerMatchesScorer(t *testing.T) {
	kernels := []bool{false}
	if hasFMA {
		kernels = append(kernels, true)
	} else {
		t.Log("no AVX and FMA on this processor: only the Go loop is checked")
	}
	for _, fma := range kernels {
		t.Run(fmt.Sprintf("fma=%t", fma), func(t *testing.T) {
			defer func(old bool) { useFMA = old }(useFMA)
			useFMA = fma
			testCachedScorerMatchesScorer(t)
		})
	}
}

func testCachedScorerMatchesScorer(t *testing.T) {
	tests := []struct {
		hidden []int
		rows   []int
	}{
		{hidden: DefaultHidden, rows: []int{1, 3, chunkRows - 1, chunkRows, chunkRows + 1, 2000}},
		{hidden: []int{16}, rows: []int{5, 1100}},
		{hidden: nil, rows: []int{7, 600}},
		{hidden: []int{6, 5, 4}, rows: []int{9, 1300}},
		{hidden: []int{16, 8}, rows: []int{700}},
		{hidden: []int{8, 8, 8}, rows: []int{1100}},
	}
	// More shapes than a CachedScorer keeps, the first three again.
	pods := []PodState{
		{MilliCPU: 500, Memory: 1 << 30},
		{MilliCPU: 2000, Memory: 4 << 30, SoftLatencyMs: 20, HardLatencyMs: 30},
		{MilliCPU: 40000, Memory: 100 << 30, SoftLatencyMs: 10},
		{MilliCPU: 500, Memory: 1 << 30, SoftLatencyMs: 20, HardLatencyMs: 30},
		{MilliCPU: 250, Memory: 64 << 20},
		{MilliCPU: 8000, Memory: 16 << 30, HardLatencyMs: 25},
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
				close := cmp.Comparer(func(a, b float64) bool {
					return math.Abs(a-b) <= 1e-9*(1+math.Abs(a))
				})
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
						if diff := cmp.Diff(want, got, close); diff != "" {
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
				// One node changes between pods, as in a scheduler.
				for k := range 2 * len(pods) {
					i := r.IntN(rows)
					nodes[i] = randomNode(r)
					cs.Set(i, &nodes[i])
					pod := pods[k%len(pods)]
					want, wantMask := make([]float64, len(nodes)), make([]bool, len(nodes))
					NewScorer(m).Score(&pod, nodes, want, wantMask)
					got, gotMask := make([]float64, len(nodes)), make([]bool, len(nodes))
					cs.Score(&pod, got, gotMask)
					if diff := cmp.Diff(want, got, close); diff != "" {
						t.Errorf("node %d changed before pod %+v: Q-values (-Scorer +CachedScorer):\n%s", i, pod, diff)
					}
					if diff := cmp.Diff(wantMask, gotMask); diff != "" {
						t.Errorf("node %d changed before pod %+v: mask (-Scorer +CachedScorer):\n%s", i, pod, diff)
					}
				}
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

// TestTimesLambdaRows checks the product of rows with a layer's Λ, with
// the processor's fused multiply-add where it has them and in Go, against
// its definition, for eight outputs (the assembly's case) and others.
func TestTimesLambdaRows(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, fma := range []bool{false, true} {
		if fma && !hasFMA {
			t.Log("no AVX and FMA on this processor: only the Go loop is checked")
			continue
		}
		for _, tc := range []struct{ rows, in, out int }{
			{1, 1, 8}, {3, 12, 8}, {512, 12, 8}, {7, 16, 8}, {5, 8, 1}, {4, 12, 12}, {6, 5, 4}, {2, 3, 9},
		} {
			t.Run(fmt.Sprintf("fma=%t/%dx%d·%dx%d", fma, tc.rows, tc.in, tc.in, tc.out), func(t *testing.T) {
				defer func(old bool) { useFMA = old }(useFMA)
				useFMA = fma
				h, lambda := make([]float64, tc.rows*tc.in), make([]float64, tc.in*tc.out)
				for i := range h {
					h[i] = max(r.NormFloat64(), 0)
				}
				for i := range lambda {
					lambda[i] = r.NormFloat64()
				}
				want := make([]float64, tc.rows*tc.out)
				for row := range tc.rows {
					for j := range tc.out {
						for k := range tc.in {
							want[row*tc.out+j] += h[row*tc.in+k] * lambda[k*tc.out+j]
						}
					}
				}
				got := make([]float64, tc.rows*tc.out)
				timesLambdaRows(h, tc.in, lambda, got)
				if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool {
					return math.Abs(a-b) <= 1e-12*(1+math.Abs(a))
				})); diff != "" {
					t.Errorf("(-definition +timesLambdaRows):\n%s", diff)
				}
			})
		}
	}
}

// TestReluTimesLambdaRows checks a hidden layer's pass (ReLU, sums, the
// product with the next layer's Λ) with the processor's AVX and FMA
// against the Go loop: the same activations and sums bit for bit, the
// same products up to rounding.
func TestReluTimesLambdaRows(t *testing.T) {
	if !hasFMA {
		t.Skip("no AVX and FMA on this processor")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct{ rows, in, out int }{
		{1, 4, 8}, {3, 12, 8}, {512, 12, 8}, {7, 16, 8}, {5, 8, 8}, {4, 12, 1}, {512, 8, 1}, {3, 4, 1}, {6, 5, 8}, {2, 6, 1}, {2, 12, 12},
	} {
		t.Run(fmt.Sprintf("%dx%d·%dx%d", tc.rows, tc.in, tc.in, tc.out), func(t *testing.T) {
			pre, c, lambda := make([]float64, tc.rows*tc.in), make([]float64, tc.in), make([]float64, tc.in*tc.out)
			for _, s := range [][]float64{pre, c, lambda} {
				for i := range s {
					s[i] = r.NormFloat64()
				}
			}
			run := func(fma bool) (sum, act, z []float64) {
				defer func(old bool) { useFMA = old }(useFMA)
				useFMA = fma
				sum, act, z = make([]float64, tc.in), make([]float64, tc.rows*tc.in), make([]float64, tc.rows*tc.out)
				sum[0] = 1 // sums are added to
				reluTimesLambdaRows(pre, c, sum, act, lambda, z)
				return sum, act, z
			}
			wantSum, wantAct, wantZ := run(false)
			gotSum, gotAct, gotZ := run(true)
			if diff := cmp.Diff(wantSum, gotSum); diff != "" {
				t.Errorf("sums (-Go +AVX):\n%s", diff)
			}
			if diff := cmp.Diff(wantAct, gotAct); diff != "" {
				t.Errorf("activations (-Go +AVX):\n%s", diff)
			}
			if diff := cmp.Diff(wantZ, gotZ, cmp.Comparer(func(a, b float64) bool {
				return math.Abs(a-b) <= 1e-12*(1+math.Abs(a))
			})); diff != "" {
				t.Errorf("products (-Go +AVX):\n%s", diff)
			}
		})
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
