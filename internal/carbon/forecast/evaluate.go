package forecast

import (
	"math"
	"time"
)

// Horizons are the horizons, in hours, the forecast error is reported for.
var Horizons = []int{1, 3, 6, 12, 24, 48}

// A Score is one model's error on a held-out period.
type Score struct {
	// Model is the model's name.
	Model string `json:"model"`
	// MAPE is the mean absolute percentage error per horizon (the
	// evaluation's horizons, in order): 100 * mean(|forecast - actual| /
	// actual) over the scored hours; NaN when no hour was scored.
	MAPE []float64 `json:"mape"`
	// Hours is the number of hours scored per horizon.
	Hours []int `json:"hours"`
}

// Evaluate scores models on the hours of s that start in [from, to). For
// each horizon h and each such hour T with a known, positive intensity, every
// model forecasts from the origin T - h, given s up to and including the
// origin (the actual history, Lookback hours of it), and the absolute
// percentage error of its forecast for T counts towards h's MAPE. Every
// horizon is scored on the same hours, so the columns compare.
//
// The models are fitted by the caller, usually on s.Without(from, to);
// Evaluate only forecasts. It returns one Score per model, in order.
func Evaluate(s Series, from, to time.Time, horizons []int, models ...Model) []Score {
	maxH := 0
	for _, h := range horizons {
		maxH = max(maxH, h)
	}
	lo, hi := max(0, s.Index(from)), min(s.Len(), s.Index(to))
	sums := make([][]float64, len(models))
	counts := make([][]int, len(models))
	for m := range models {
		sums[m], counts[m] = make([]float64, len(horizons)), make([]int, len(horizons))
	}
	for o := max(0, lo-maxH); o < hi-1; o++ {
		start := max(0, o-Lookback+1)
		recent := Series{Zone: s.Zone, First: s.First.Add(time.Duration(start) * time.Hour), Values: s.Values[start : o+1], Signal: s.Signal}
		for m, model := range models {
			pred := model.Predict(recent, maxH)
			for k, h := range horizons {
				T := o + h
				if T < lo || T >= hi {
					continue
				}
				actual := s.Values[T]
				if math.IsNaN(actual) || actual <= 0 || math.IsNaN(pred[h-1]) {
					continue
				}
				sums[m][k] += math.Abs(pred[h-1]-actual) / actual
				counts[m][k]++
			}
		}
	}
	out := make([]Score, len(models))
	for m, model := range models {
		out[m] = Score{Model: model.Name(), MAPE: make([]float64, len(horizons)), Hours: counts[m]}
		for k := range horizons {
			out[m].MAPE[k] = math.NaN()
			if counts[m][k] > 0 {
				out[m].MAPE[k] = 100 * sums[m][k] / float64(counts[m][k])
			}
		}
	}
	return out
}
