package optimizer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLossGradient checks the back-propagated gradient against central
// differences at random points, for several shapes.
func TestLossGradient(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in, hidden int
	}{
		{name: "1 input 1 unit", in: 1, hidden: 1},
		{name: "3 inputs 6 units", in: 3, hidden: 6},
		{name: "9 inputs 4 units", in: 9, hidden: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.in*100+tc.hidden)))
			xs := make([][]float64, 7)
			ys := make([]float64, len(xs))
			for k := range xs {
				xs[k] = make([]float64, tc.in)
				for i := range xs[k] {
					xs[k][i] = rng.NormFloat64()
				}
				ys[k] = rng.NormFloat64()
			}
			p := make([]float64, paramCount(tc.in, tc.hidden))
			for i := range p {
				p[i] = rng.NormFloat64()
			}
			grad := make([]float64, len(p))
			loss(p, tc.in, tc.hidden, xs, ys, grad)
			const h = 1e-6
			for i := range p {
				saved := p[i]
				p[i] = saved + h
				up := loss(p, tc.in, tc.hidden, xs, ys, nil)
				p[i] = saved - h
				down := loss(p, tc.in, tc.hidden, xs, ys, nil)
				p[i] = saved
				numeric := (up - down) / (2 * h)
				if diff := math.Abs(numeric - grad[i]); diff > 1e-6*math.Max(1, math.Abs(numeric)) {
					t.Errorf("parameter %d: back-propagated gradient %.9g, central difference %.9g", i, grad[i], numeric)
				}
			}
		})
	}
}

// TestFitMLP checks that the network learns a non-linear function of two
// inputs on different scales, judged on points it was not trained on, and
// that training is deterministic for a seed.
func TestFitMLP(t *testing.T) {
	f := func(a, b float64) float64 { return 50 + 20*math.Tanh(a/100) + b*b }
	rng := rand.New(rand.NewPCG(7, 7))
	draw := func(n int) ([][]float64, []float64) {
		xs := make([][]float64, n)
		ys := make([]float64, n)
		for k := range xs {
			a, b := rng.Float64()*400-200, rng.Float64()*4-2
			xs[k], ys[k] = []float64{a, b}, f(a, b)
		}
		return xs, ys
	}
	xs, ys := draw(300)
	m, err := FitMLP(xs, ys, 8, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, ty := draw(200)
	sq := 0.0
	for k, x := range tx {
		e := m.Predict(x) - ty[k]
		sq += e * e
	}
	// The targets span about 44; a network that did not learn the
	// function's shape (a linear fit) is off by more than 1.
	rmse := math.Sqrt(sq / float64(len(tx)))
	t.Logf("held-out RMSE %.4f", rmse)
	if rmse > 0.5 {
		t.Errorf("held-out RMSE %.3f, want at most 0.5", rmse)
	}
	again, err := FitMLP(xs, ys, 8, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Params {
		if m.Params[i] != again.Params[i] {
			t.Fatalf("parameter %d differs between two trainings with the same seed: %v and %v", i, m.Params[i], again.Params[i])
		}
	}
}

func TestMinimizeLBFGS(t *testing.T) {
	// Rosenbrock's function: minimum 0 at (1, 1).
	f := func(x, g []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		if g != nil {
			g[0] = -2*a - 400*x[0]*b
			g[1] = 200 * b
		}
		return a*a + 100*b*b
	}
	x := minimizeLBFGS(f, []float64{-1.2, 1}, 500)
	if math.Abs(x[0]-1) > 1e-4 || math.Abs(x[1]-1) > 1e-4 {
		t.Errorf("minimum found at %v, want (1, 1)", x)
	}
}
