package optimizer

import "math"

// lbfgsMemory is how many curvature pairs L-BFGS keeps.
const lbfgsMemory = 8

// minimizeLBFGS minimizes f (which returns the value and, when g is not
// nil, writes the gradient) from x0 with limited-memory BFGS and a
// backtracking Armijo line search, for at most iterations steps. It is
// deterministic and returns the best point found.
//
// gonum's optimize package would do, but it pulls golang.org/x/tools into
// the module graph for a few dozen lines of well-known algorithm.
func minimizeLBFGS(f func(x, g []float64) float64, x0 []float64, iterations int) []float64 {
	n := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, n)
	fx := f(x, g)
	var ss, ys [][]float64
	var rhos []float64
	d := make([]float64, n)
	alpha := make([]float64, lbfgsMemory)
	xn := make([]float64, n)
	gn := make([]float64, n)
	for range iterations {
		// Two-loop recursion: d = -H·g.
		copy(d, g)
		for i := len(ss) - 1; i >= 0; i-- {
			alpha[i] = rhos[i] * dot(ss[i], d)
			axpy(-alpha[i], ys[i], d)
		}
		if k := len(ss) - 1; k >= 0 {
			scale(dot(ss[k], ys[k])/dot(ys[k], ys[k]), d)
		}
		for i := range ss {
			b := rhos[i] * dot(ys[i], d)
			axpy(alpha[i]-b, ss[i], d)
		}
		scale(-1, d)
		slope := dot(g, d)
		if slope >= 0 {
			// Not a descent direction: restart from steepest descent.
			ss, ys, rhos = ss[:0], ys[:0], rhos[:0]
			copy(d, g)
			scale(-1, d)
			slope = dot(g, d)
		}
		if -slope < 1e-16 {
			break
		}
		step := 1.0
		if len(ss) == 0 {
			step = math.Min(1, 1/math.Sqrt(dot(g, g)))
		}
		var fn float64
		accepted := false
		for range 30 {
			for i := range x {
				xn[i] = x[i] + step*d[i]
			}
			fn = f(xn, gn)
			if fn <= fx+1e-4*step*slope && !math.IsNaN(fn) {
				accepted = true
				break
			}
			step /= 2
		}
		if !accepted {
			break
		}
		s := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			s[i] = xn[i] - x[i]
			y[i] = gn[i] - g[i]
		}
		if sy := dot(s, y); sy > 1e-12 {
			if len(ss) == lbfgsMemory {
				ss, ys, rhos = ss[1:], ys[1:], rhos[1:]
			}
			ss, ys, rhos = append(ss, s), append(ys, y), append(rhos, 1/sy)
		}
		improvement := fx - fn
		copy(x, xn)
		copy(g, gn)
		fx = fn
		if improvement <= 1e-10*math.Max(1, math.Abs(fx)) && dot(g, g) < 1e-12 {
			break
		}
		if math.Sqrt(dot(g, g)) < 1e-7 {
			break
		}
	}
	return x
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func scale(a float64, x []float64) {
	for i := range x {
		x[i] *= a
	}
}
