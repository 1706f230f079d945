package learn

import "math"

// Adam is the Adam optimiser (Kingma and Ba, 2015) over a parameter vector.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	m, v                  []float64
	t                     int
}

// NewAdam returns Adam with the paper's defaults for the betas and epsilon.
func NewAdam(params int, lr float64) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: make([]float64, params), v: make([]float64, params)}
}

// Step moves params against grad.
func (a *Adam) Step(params, grad []float64) {
	a.t++
	c1 := 1 - math.Pow(a.Beta1, float64(a.t))
	c2 := 1 - math.Pow(a.Beta2, float64(a.t))
	for i, g := range grad {
		a.m[i] = a.Beta1*a.m[i] + (1-a.Beta1)*g
		a.v[i] = a.Beta2*a.v[i] + (1-a.Beta2)*g*g
		params[i] -= a.LR * (a.m[i] / c1) / (math.Sqrt(a.v[i]/c2) + a.Eps)
	}
}
