package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Distribution kinds.
const (
	Constant    = "constant"
	Uniform     = "uniform"
	Exponential = "exponential"
	LogNormal   = "lognormal"
	Pareto      = "pareto"
	Mixture     = "mixture"
)

// Dist is a distribution of non-negative numbers, in the unit of the field
// that holds it. Min and Max, when set, truncate it: a draw outside is drawn
// again (and clamped after many tries).
type Dist struct {
	Kind string `json:"kind"`
	// Value is the constant's value.
	Value float64 `json:"value,omitempty"`
	// Mean is the exponential's mean.
	Mean float64 `json:"mean,omitempty"`
	// Median and Sigma are the lognormal's median (exp(mu)) and the
	// standard deviation of its logarithm.
	Median float64 `json:"median,omitempty"`
	Sigma  float64 `json:"sigma,omitempty"`
	// Scale and Alpha are the Pareto's minimum and tail index.
	Scale float64 `json:"scale,omitempty"`
	Alpha float64 `json:"alpha,omitempty"`
	Min   float64 `json:"min,omitempty"`
	Max   float64 `json:"max,omitempty"`
	// Components are the mixture's weighted parts.
	Components []Component `json:"components,omitempty"`
}

// Component is one weighted part of a mixture.
type Component struct {
	Weight float64 `json:"weight"`
	Dist   Dist    `json:"dist"`
}

// Validate reports what is wrong with d, naming the field at fault relative
// to d.
func (d Dist) Validate() (field string, err error) {
	if d.Min < 0 || (d.Max != 0 && d.Max < d.Min) {
		return "max", fmt.Errorf("min %g and max %g: need 0 <= min <= max", d.Min, d.Max)
	}
	switch d.Kind {
	case Constant:
		if d.Value < 0 {
			return "value", fmt.Errorf("%g: must not be negative", d.Value)
		}
	case Uniform:
		if d.Max <= 0 {
			return "max", fmt.Errorf("uniform needs max above min")
		}
	case Exponential:
		if d.Mean <= 0 {
			return "mean", fmt.Errorf("%g: must be positive", d.Mean)
		}
	case LogNormal:
		if d.Median <= 0 {
			return "median", fmt.Errorf("%g: must be positive", d.Median)
		}
		if d.Sigma < 0 {
			return "sigma", fmt.Errorf("%g: must not be negative", d.Sigma)
		}
	case Pareto:
		if d.Scale <= 0 {
			return "scale", fmt.Errorf("%g: must be positive", d.Scale)
		}
		if d.Alpha <= 0 {
			return "alpha", fmt.Errorf("%g: must be positive", d.Alpha)
		}
	case Mixture:
		if len(d.Components) == 0 {
			return "components", fmt.Errorf("a mixture needs at least one component")
		}
		for i, c := range d.Components {
			if c.Weight <= 0 {
				return fmt.Sprintf("components[%d].weight", i), fmt.Errorf("%g: must be positive", c.Weight)
			}
			if f, err := c.Dist.Validate(); err != nil {
				return fmt.Sprintf("components[%d].dist.%s", i, f), err
			}
		}
	default:
		return "kind", fmt.Errorf("%q: must be one of %s, %s, %s, %s, %s, %s",
			d.Kind, Constant, Uniform, Exponential, LogNormal, Pareto, Mixture)
	}
	return "", nil
}

// Sample draws one value.
func (d Dist) Sample(r *rand.Rand) float64 {
	const tries = 64
	var v float64
	for range tries {
		v = d.draw(r)
		if v >= d.Min && (d.Max == 0 || v <= d.Max) {
			return v
		}
	}
	v = math.Max(v, d.Min)
	if d.Max != 0 {
		v = math.Min(v, d.Max)
	}
	return v
}

func (d Dist) draw(r *rand.Rand) float64 {
	switch d.Kind {
	case Constant:
		return d.Value
	case Uniform:
		return d.Min + r.Float64()*(d.Max-d.Min)
	case Exponential:
		return r.ExpFloat64() * d.Mean
	case LogNormal:
		return d.Median * math.Exp(d.Sigma*r.NormFloat64())
	case Pareto:
		return d.Scale / math.Pow(1-r.Float64(), 1/d.Alpha)
	case Mixture:
		var total float64
		for _, c := range d.Components {
			total += c.Weight
		}
		x := r.Float64() * total
		for _, c := range d.Components {
			if x < c.Weight {
				return c.Dist.Sample(r)
			}
			x -= c.Weight
		}
		return d.Components[len(d.Components)-1].Dist.Sample(r)
	}
	return 0
}
