package forecast

import "math"

// Naive forecasts the hour T = t + h from origin t as the same hour on the
// last observed day, y(T - 24*ceil(h/24)): "the same hour yesterday" for
// horizons up to a day, the same hour two days back for 25-48 h. It is the
// baseline every fitted model must beat. A missing hour takes the same hour
// of an earlier day in recent (up to a week back), else recent's last known
// hour.
type Naive struct{}

var _ Model = Naive{}

// Name implements Model.
func (Naive) Name() string { return NaiveModel }

// Predict implements Model.
func (Naive) Predict(recent Series, hours int) []float64 {
	v := recent.Values
	t := len(v) - 1
	last := math.NaN()
	for i := t; i >= 0; i-- {
		if !math.IsNaN(v[i]) {
			last = v[i]
			break
		}
	}
	out := make([]float64, hours)
	for h := 1; h <= hours; h++ {
		out[h-1] = last
		for back := 24 * ceilDays(h); back <= 24*ceilDays(h)+6*24; back += 24 {
			if i := t + h - back; i >= 0 && !math.IsNaN(v[i]) {
				out[h-1] = v[i]
				break
			}
		}
	}
	return out
}
