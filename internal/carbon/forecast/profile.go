package forecast

import (
	"fmt"
	"math"
)

// Profile forecasts the hour T = t + h from origin t as the mean of the same
// hour on the last 7 observed days, plus the origin's deviation from its
// own 7-day mean decaying as phi^h: a seasonal model with a recent-level
// correction. It needs only a day of history (missing days come from the
// hour-of-week profile), so it serves zones whose history is too short for
// the Regression; phi is chosen on the history from a fixed grid.
type Profile struct {
	zone    string
	profile weekProfile
	phi     float64
}

var _ Model = &Profile{}

// phis are the decay rates NewProfile chooses from.
var phis = []float64{0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99}

// NewProfile fits the profile model on the zone's history: the hour-of-week
// profile, and the decay rate with the least squared error over horizons
// 1-48 h on the history's known hours. It needs MinProfileHours known hours.
func NewProfile(history Series) (*Profile, error) {
	if known := history.Known(); known < MinProfileHours {
		return nil, fmt.Errorf("forecast: zone %q has %d known hours, want at least %d for the %s model: %w",
			history.Zone, known, MinProfileHours, ProfileModel, ErrShortHistory)
	}
	p := &Profile{zone: history.Zone, profile: newWeekProfile(history), phi: 0.9}
	v, _ := window(history, history.Len()+Lookback-1, &p.profile)
	orig := make([]float64, len(v))
	copy(orig, v)
	for i := range Lookback - 1 {
		orig[i] = math.NaN()
	}
	copy(orig[Lookback-1:], history.Values)
	_, d7 := dailyMeans(v)
	// A stride keeps the choice cheap on years of history; horizons are
	// sampled likewise.
	stride := max(1, (len(v)-Lookback)/2000)
	best := math.Inf(1)
	for _, phi := range phis {
		var sse float64
		for t := Lookback - 1; t < len(v)-1; t += stride {
			if math.IsNaN(orig[t]) {
				continue
			}
			dev := v[t] - d7[t-24]
			decay := 1.0
			for h := 1; h <= MaxHorizon && t+h < len(v); h++ {
				decay *= phi
				if h%3 != 1 || math.IsNaN(orig[t+h]) {
					continue
				}
				e := d7[t+h-24*ceilDays(h)] + dev*decay - orig[t+h]
				sse += e * e
			}
		}
		if sse < best {
			best, p.phi = sse, phi
		}
	}
	return p, nil
}

// Name implements Model.
func (p *Profile) Name() string { return ProfileModel }

// Phi returns the fitted hourly decay of the origin's deviation.
func (p *Profile) Phi() float64 { return p.phi }

// Predict implements Model.
func (p *Profile) Predict(recent Series, hours int) []float64 {
	v, _ := window(recent, Lookback, &p.profile)
	_, d7 := dailyMeans(v)
	t := len(v) - 1
	dev := v[t] - d7[t-24]
	out := make([]float64, hours)
	decay := 1.0
	for h := 1; h <= hours; h++ {
		decay *= p.phi
		out[h-1] = d7[t+h-24*ceilDays(h)] + dev*decay
	}
	return out
}
