package optimizer

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Regression is the seed's per-metric model of a scaling step with one more
// term: m' = W[0] + W[1]·m·N/(N+N') + W[2]·m·N'/(N+N') + W[3]·m·N/N'.
//
// The seed's two terms are weighted averages of m, so they cannot represent
// a metric that spreads over the replicas (a per-replica request rate or a
// CPU utilization: m' = m·N/N'): for a step from 4 to 8 replicas the best
// they can do is about m·2/3 where the truth is m/2. The fourth term is that
// spreading; a metric that does not spread (a total rate) keeps W[3] near 0.
type Regression struct {
	W [regressionTerms]float64 `json:"w"`
}

// regressionTerms is the number of a Regression's weights.
const regressionTerms = 4

// features are the regression's inputs for metric m moving from n to next
// replicas.
func features(m float64, n, next int) [regressionTerms]float64 {
	sum := float64(n + next)
	return [regressionTerms]float64{1, m * float64(n) / sum, m * float64(next) / sum, m * float64(n) / float64(next)}
}

// Predict returns the metric expected at next replicas when it is m at n.
func (r Regression) Predict(m float64, n, next int) float64 {
	f := features(m, n, next)
	var v float64
	for i, w := range r.W {
		v += w * f[i]
	}
	return v
}

// ridge keeps the normal equations solvable when the pairs never changed the
// replica count (then the slopes are not separately identified) or the
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
	xtx.ReuseAsSym(regressionTerms)
	xty := mat.NewVecDense(regressionTerms, nil)
	scale := 0.0
	for i := range before {
		f := features(before[i], n[i], next[i])
		for a := range regressionTerms {
			for b := a; b < regressionTerms; b++ {
				xtx.SetSym(a, b, xtx.At(a, b)+f[a]*f[b])
			}
			xty.SetVec(a, xty.AtVec(a)+f[a]*after[i])
		}
		for a := 1; a < regressionTerms; a++ {
			scale += f[a] * f[a]
		}
	}
	lambda := ridge * (scale/float64(len(before)) + 1) * float64(len(before))
	for a := 1; a < regressionTerms; a++ {
		xtx.SetSym(a, a, xtx.At(a, a)+lambda)
	}
	xtx.SetSym(0, 0, xtx.At(0, 0)+ridge)
	var w mat.VecDense
	if err := w.SolveVec(&xtx, xty); err != nil {
		var cond mat.Condition
		if errors.As(err, &cond) {
			// Ill-conditioned, yet solved: the ridge keeps the answer finite.
			return weights(&w), nil
		}
		return Regression{}, fmt.Errorf("failed to solve the regression's normal equations: %w", err)
	}
	return weights(&w), nil
}

func weights(w *mat.VecDense) Regression {
	var r Regression
	for i := range r.W {
		r.W[i] = w.AtVec(i)
	}
	return r
}
