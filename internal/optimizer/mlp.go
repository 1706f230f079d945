package optimizer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// MLP is a network with one tanh hidden layer and a linear output that
// predicts the target from the system metrics. Inputs and output are
// standardized with the training data's mean and standard deviation.
type MLP struct {
	// Params holds, in order, the hidden layer's weights (Hidden rows of
	// len(InMean)), its biases, the output weights and the output bias.
	Params []float64 `json:"params"`
	Hidden int       `json:"hidden"`
	InMean []float64 `json:"in_mean"`
	InStd  []float64 `json:"in_std"`
	OutMu  float64   `json:"out_mean"`
	OutStd float64   `json:"out_std"`
}

// l2 is the weight penalty of training, on standardized data.
const l2 = 1e-3

// maxIterations bounds one training's L-BFGS iterations.
const maxIterations = 200

func paramCount(in, hidden int) int { return hidden*in + hidden + hidden + 1 }

// Predict returns the network's target for the metrics x.
func (m *MLP) Predict(x []float64) float64 {
	in := len(m.InMean)
	var z [64]float64
	scaled := z[:0]
	for i, v := range x[:in] {
		scaled = append(scaled, (v-m.InMean[i])/m.InStd[i])
	}
	return m.OutMu + m.OutStd*forward(m.Params, in, m.Hidden, scaled, nil)
}

// forward evaluates the standardized network; if act is not nil it receives
// the hidden activations.
func forward(p []float64, in, hidden int, x []float64, act []float64) float64 {
	bias := p[hidden*in:]
	out := p[hidden*in+hidden:]
	y := out[hidden]
	for h := range hidden {
		a := bias[h]
		row := p[h*in : (h+1)*in]
		for i, v := range x {
			a += row[i] * v
		}
		t := math.Tanh(a)
		if act != nil {
			act[h] = t
		}
		y += out[h] * t
	}
	return y
}

// loss is the training objective on standardized data: half the mean
// squared error plus half l2 times the squared weights (biases are not
// penalized). If grad is not nil it receives the gradient.
func loss(p []float64, in, hidden int, xs [][]float64, ys []float64, grad []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	act := make([]float64, hidden)
	n := float64(len(xs))
	total := 0.0
	gb := hidden * in
	gw := gb + hidden
	for k, x := range xs {
		e := forward(p, in, hidden, x, act) - ys[k]
		total += e * e
		if grad == nil {
			continue
		}
		d := e / n
		grad[gw+hidden] += d
		for h := range hidden {
			grad[gw+h] += d * act[h]
			dh := d * p[gw+h] * (1 - act[h]*act[h])
			grad[gb+h] += dh
			row := grad[h*in : (h+1)*in]
			for i, v := range x {
				row[i] += dh * v
			}
		}
	}
	reg := 0.0
	for i := range gb {
		reg += p[i] * p[i]
		if grad != nil {
			grad[i] += l2 * p[i]
		}
	}
	for h := range hidden {
		reg += p[gw+h] * p[gw+h]
		if grad != nil {
			grad[gw+h] += l2 * p[gw+h]
		}
	}
	return 0.5*total/n + 0.5*l2*reg
}

func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	std = math.Sqrt(std / float64(len(v)))
	if std < 1e-9*math.Max(1, math.Abs(mean)) {
		// A constant column carries no information; dividing by one keeps
		// it at zero instead of blowing it up.
		std = 1
	}
	return mean, std
}

// FitMLP trains a network with hidden units on rows xs (one slice of metrics
// each) and targets ys. start, if it has the right shape, is the initial
// network (a warm start); otherwise the weights start from a normal
// distribution seeded by seed.
func FitMLP(xs [][]float64, ys []float64, hidden int, seed uint64, start *MLP) (*MLP, error) {
	if len(xs) < 2 || len(xs) != len(ys) {
		return nil, fmt.Errorf("failed to fit the network: %d rows and %d targets: want the same count, at least 2", len(xs), len(ys))
	}
	in := len(xs[0])
	if in == 0 || in > 64 {
		return nil, fmt.Errorf("failed to fit the network: %d inputs: want 1 to 64", in)
	}
	m := &MLP{Hidden: hidden, InMean: make([]float64, in), InStd: make([]float64, in)}
	col := make([]float64, len(xs))
	for i := range in {
		for k, x := range xs {
			col[k] = x[i]
		}
		m.InMean[i], m.InStd[i] = meanStd(col)
	}
	m.OutMu, m.OutStd = meanStd(ys)
	sx := make([][]float64, len(xs))
	sy := make([]float64, len(ys))
	for k, x := range xs {
		sx[k] = make([]float64, in)
		for i, v := range x {
			sx[k][i] = (v - m.InMean[i]) / m.InStd[i]
		}
		sy[k] = (ys[k] - m.OutMu) / m.OutStd
	}
	n := paramCount(in, hidden)
	init := make([]float64, n)
	if start != nil && start.Hidden == hidden && len(start.Params) == n {
		copy(init, start.Params)
	} else {
		rng := rand.New(rand.NewPCG(seed, 0x6d6c70))
		for i := range hidden * in {
			init[i] = rng.NormFloat64() / math.Sqrt(float64(in))
		}
		for h := range hidden {
			init[hidden*in+hidden+h] = rng.NormFloat64() / math.Sqrt(float64(hidden))
		}
	}
	params := minimizeLBFGS(func(p, g []float64) float64 { return loss(p, in, hidden, sx, sy, g) }, init, maxIterations)
	m.Params = params
	for _, v := range m.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("failed to fit the network: the weights diverged")
		}
	}
	return m, nil
}
