package optimizer

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Regression is the seed's per-metric model of a scaling step:
// m' = W[0] + W[1]·m·N/(N+N') + W[2]·m·N'/(N+N').
type Regression struct {
	W [3]float64 `json:"w"`
}

// features are the regression's inputs for metric m moving from n to next
// replicas.
func features(m float64, n, next int) [3]float64 {
	sum := float64(n + next)
	return [3]float64{1, m * float64(n) / sum, m * float64(next) / sum}
}

// Predict returns the metric expected at next replicas when it is m at n.
func (r Regression) Predict(m float64, n, next int) float64 {
	f := features(m, n, next)
	return r.W[0]*f[0] + r.W[1]*f[1] + r.W[2]*f[2]
}

// ridge keeps the normal equations solvable when the pairs never changed the
// replica count (then the two slopes are not separately identified) or the
// metric was constant; it is small against standardized data.
const ridge = 1e-6

// FitRegression fits a Regression to pairs: metric before[i] at n[i]
// replicas followed by after[i] at next[i] replicas, by least squares with a
// tiny ridge penalty on the slopes.
func FitRegression(before, after []float64, n, next []int) (Regression, error) {
	if len(before) == 0 || len(before) != len(after) || len(before) != len(n) || len(n) != len(next) {
		return Regression{}, fmt.Errorf("failed to fit a regression: %d, %d, %d and %d values: want the same count, at least 1", len(before), len(after), len(n), len(next))
	}
	// Normal equations (XᵀX + λD) w = Xᵀy, with λ scaled to the data so the
	// penalty means the same for metrics in the thousands and in fractions.
	var xtx mat.SymDense
	xtx.ReuseAsSym(3)
	xty := mat.NewVecDense(3, nil)
	scale := 0.0
	for i := range before {
		f := features(before[i], n[i], next[i])
		for a := range 3 {
			for b := a; b < 3; b++ {
				xtx.SetSym(a, b, xtx.At(a, b)+f[a]*f[b])
			}
			xty.SetVec(a, xty.AtVec(a)+f[a]*after[i])
		}
		scale += f[1]*f[1] + f[2]*f[2]
	}
	lambda := ridge * (scale/float64(len(before)) + 1) * float64(len(before))
	for a := 1; a < 3; a++ {
		xtx.SetSym(a, a, xtx.At(a, a)+lambda)
	}
	xtx.SetSym(0, 0, xtx.At(0, 0)+ridge)
	var w mat.VecDense
	if err := w.SolveVec(&xtx, xty); err != nil {
		var cond mat.Condition
		if errors.As(err, &cond) {
			// Ill-conditioned, yet solved: the ridge keeps the answer finite.
			return Regression{W: [3]float64{w.AtVec(0), w.AtVec(1), w.AtVec(2)}}, nil
		}
		return Regression{}, fmt.Errorf("failed to solve the regression's normal equations: %w", err)
	}
	return Regression{W: [3]float64{w.AtVec(0), w.AtVec(1), w.AtVec(2)}}, nil
}
