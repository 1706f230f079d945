package learn

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func randomInput(r *rand.Rand, n *Network, rows int) (x, pod []float64) {
	x = make([]float64, rows*n.NodeFeatures)
	for i := range x {
		if r.IntN(5) > 0 { // some exact zeros, as the features have
			x[i] = r.Float64()*2 - 0.5
		}
	}
	pod = make([]float64, n.PodFeatures)
	for i := range pod {
		pod[i] = r.Float64()
	}
	return x, pod
}

// reference is the network written as its definition, with the pod's
// columns in every row and no shortcut.
func reference(n *Network, x []float64, rows int, pod []float64) []float64 {
	fn := n.NodeFeatures
	cur := make([][]float64, rows)
	for i := range cur {
		cur[i] = append(append([]float64{}, x[i*fn:i*fn+fn]...), pod...)
	}
	for li, l := range n.Layers {
		mean := make([]float64, l.In)
		for _, row := range cur {
			for k, v := range row {
				mean[k] += v / float64(rows)
			}
		}
		next := make([][]float64, rows)
		for i, row := range cur {
			next[i] = make([]float64, l.Out)
			for j := 0; j < l.Out; j++ {
				z := l.Bias[j]
				for k := 0; k < l.In; k++ {
					z += row[k]*l.Lambda[k*l.Out+j] + mean[k]*l.Gamma[k*l.Out+j]
				}
				if li < len(n.Layers)-1 {
					z = math.Max(z, 0)
				}
				next[i][j] = z
			}
		}
		cur = next
	}
	q := make([]float64, rows)
	for i := range q {
		q[i] = cur[i][0]
	}
	return q
}

func forward(n *Network, x []float64, rows int, pod []float64) []float64 {
	var ws Workspace
	q := make([]float64, rows)
	n.Forward(&ws, x, rows, pod, q)
	return q
}

func TestForwardMatchesDefinitionAtAnySize(t *testing.T) {
	net, err := NewNetwork(len(NodeColumns), len(PodColumns), []int{16, 8}, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	for i := range net.Params { // non-zero biases too
		net.Params[i] += r.NormFloat64() * 0.05
	}
	// One workspace across sizes: growing and shrinking must not leak rows.
	var ws Workspace
	for _, rows := range []int{3, 10, 1000, 3} {
		x, pod := randomInput(r, net, rows)
		got := make([]float64, rows)
		net.Forward(&ws, x, rows, pod, got)
		if diff := cmp.Diff(reference(net, x, rows, pod), got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("%d rows: Q-values (-want +got):\n%s", rows, diff)
		}
	}
}

func TestSameWeightsAnyNumberOfNodes(t *testing.T) {
	// A cluster of 1,000 nodes made of 100 copies of 10 nodes has the same
	// pooled summary as the 10, so each copy must score as its original:
	// nothing in the network depends on the number of rows.
	net, _ := NewNetwork(len(NodeColumns), len(PodColumns), []int{16, 8}, 3)
	r := rand.New(rand.NewPCG(4, 4))
	x, pod := randomInput(r, net, 10)
	small := forward(net, x, 10, pod)
	var big []float64
	for range 100 {
		big = append(big, x...)
	}
	got := forward(net, big, 1000, pod)
	for i := range got {
		if math.Abs(got[i]-small[i%10]) > 1e-9 {
			t.Fatalf("row %d: Q %g, its original (row %d of 10) %g", i, got[i], i%10, small[i%10])
		}
	}
}

func TestPermutationEquivariance(t *testing.T) {
	net, _ := NewNetwork(len(NodeColumns), len(PodColumns), []int{16, 8}, 5)
	r := rand.New(rand.NewPCG(6, 6))
	fn := net.NodeFeatures
	for _, rows := range []int{2, 7, 50} {
		x, pod := randomInput(r, net, rows)
		q := forward(net, x, rows, pod)
		perm := r.Perm(rows)
		px := make([]float64, len(x))
		for i, p := range perm {
			copy(px[i*fn:i*fn+fn], x[p*fn:p*fn+fn])
		}
		pq := forward(net, px, rows, pod)
		want := make([]float64, rows)
		for i, p := range perm {
			want[i] = q[p]
		}
		if diff := cmp.Diff(want, pq, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("%d rows: permuted Q-values (-want +got):\n%s", rows, diff)
		}
	}
}

func TestGradientNumerically(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hidden []int
		rows   int
	}{
		{name: "two hidden layers, 6 nodes", hidden: []int{8, 5}, rows: 6},
		{name: "one hidden layer, 1 node", hidden: []int{4}, rows: 1},
		{name: "no hidden layer, 3 nodes", hidden: nil, rows: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net, _ := NewNetwork(len(NodeColumns), len(PodColumns), tc.hidden, 7)
			r := rand.New(rand.NewPCG(8, 8))
			for i := range net.Params {
				net.Params[i] += r.NormFloat64() * 0.1
			}
			x, pod := randomInput(r, net, tc.rows)
			w := make([]float64, tc.rows) // loss = Σ w_i q_i
			for i := range w {
				w[i] = r.NormFloat64()
			}
			loss := func() float64 {
				q := forward(net, x, tc.rows, pod)
				return dot(w, q)
			}
			var ws Workspace
			q := make([]float64, tc.rows)
			net.Forward(&ws, x, tc.rows, pod, q)
			grad := make([]float64, len(net.Params))
			net.Backward(&ws, tc.rows, pod, w, grad)
			const h = 1e-6
			bad := 0
			for i := range net.Params {
				old := net.Params[i]
				net.Params[i] = old + h
				up := loss()
				net.Params[i] = old - h
				down := loss()
				net.Params[i] = old
				num := (up - down) / (2 * h)
				if math.Abs(num-grad[i]) > 1e-5*math.Max(1, math.Abs(num)) {
					bad++
					if bad < 5 {
						t.Errorf("param %d: backprop %.9g, numeric %.9g", i, grad[i], num)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d gradients differ", bad, len(net.Params))
			}
		})
	}
}

func TestSaveLoad(t *testing.T) {
	m, _ := NewModel([]int{16, 8}, 9)
	m.Reward = "EL-RL"
	m.Info["seed"] = "9"
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	got, err := Read(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Net.Params, got.Net.Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if got.Reward != "EL-RL" || got.Info["seed"] != "9" {
		t.Errorf("reward %q info %v, want EL-RL and seed 9", got.Reward, got.Info)
	}

	edit := func(f func(map[string]any)) []byte {
		var doc map[string]any
		if err := json.Unmarshal(good, &doc); err != nil {
			t.Fatal(err)
		}
		f(doc)
		b, _ := json.Marshal(doc)
		return b
	}
	tests := []struct {
		name string
		file []byte
		want error
	}{
		{name: "other format version", file: edit(func(d map[string]any) { d["format"] = "meridian.learn.model/v0" }), want: ErrFormatVersion},
		{name: "other schema version", file: edit(func(d map[string]any) { d["schema"].(map[string]any)["version"] = "x/v9" }), want: ErrSchema},
		{name: "a node column renamed", file: edit(func(d map[string]any) {
			d["schema"].(map[string]any)["node"].([]any)[0] = "free_cpu_cores"
		}), want: ErrSchema},
		{name: "a pod column missing", file: edit(func(d map[string]any) {
			s := d["schema"].(map[string]any)
			s["pod"] = s["pod"].([]any)[1:]
		}), want: ErrSchema},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.file))
			if !errors.Is(err, tc.want) {
				t.Errorf("Read error = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("params of the wrong length", func(t *testing.T) {
		_, err := Read(bytes.NewReader(edit(func(d map[string]any) { d["params"] = []float64{1, 2} })))
		if err == nil {
			t.Error("Read accepted 2 params")
		}
	})
}
