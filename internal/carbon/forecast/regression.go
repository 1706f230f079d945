package forecast

import (
	"fmt"
	"math"
	"time"
)

// features is the number of the regression's inputs, the intercept
// included.
const features = 10

// Settings of the fit, chosen by the error measured on held-out months
// (docs/carbon.md, "Forecasts").
const (
	// halfLife is the age at which a training row weighs half as much as
	// the newest: the grid's mix drifts over a year (new solar, coal
	// retired), so older years count less without being dropped.
	halfLife = 180 * 24 * time.Hour
	// minGroupRows is the fewest rows for a model of its own per hour of
	// the day; with fewer, the hour uses the model of all hours.
	minGroupRows = 20 * features
)

// Regression forecasts each horizon h = 1..MaxHorizon hours and each hour of
// the day of the origin with its own linear model of the logarithm of the
// intensity, fitted by weighted least squares on the zone's history.
//
// One model per horizon (the "direct" strategy) keeps errors from
// compounding from one hour to the next; one per hour of the day lets the
// weights differ where the day differs (a sunrise ramp is not a night
// plateau). For a forecast from the origin hour t (the last known one) of the
// hour T = t + h, the inputs, all of log intensities y, are:
//
//	1                                  intercept
//	y(t), y(t-1)                       the current level and its last change
//	y(T-24k), k = ceil(h/24)           the same hour on the last observed day (the naive forecast)
//	y(T-168)                           the same hour a week before
//	mean y(t-23..t)                    the last day's level
//	mean of y(T-24k-24j), j = 0..6     the same hour on the last 7 observed days
//	mean of y(t-24j), j = 1..7         the origin's hour on the 7 days before
//	W(T), W(t)                         the history's mean of the hour of the week of T and of t
//
// so the model weighs persistence against the daily and weekly profile, and
// lets the origin's deviation from its profile (y(t) against its 7-day mean)
// decay with the horizon. Beyond MaxHorizon the forecast repeats its last
// day.
//
// The fit works on logarithms because the error that counts is relative
// (MAPE): a forecast 50 g too high is a worse mistake at 100 g than at
// 800 g. Least squares then aims at about the conditional median, while the
// forecast with the least MAPE is lower on skewed (wind-driven) grids; so
// each model's intercept is finally shifted by the log of the weighted median
// of actual/forecast over its training rows, weighted forecast/actual, which
// is the multiplicative correction with the least training MAPE. Rows weigh
// 2^(-age/halfLife), age counted back from the newest known hour.
//
// The least squares are ridge-regularised very lightly (1e-6 of each input's
// variance), which only matters when inputs coincide (a perfectly periodic
// history makes several of them equal).
type Regression struct {
	zone    string
	profile weekProfile
	coef    [MaxHorizon][24][features]float64
	rows    int
}

var _ Model = &Regression{}

// NewRegression fits the regression on the zone's history, whose NaN hours
// (gaps, or a held-out month) are neither targets nor origins, and are
// filled from the hour-of-week profile where another row reads them. It
// needs MinRegressionHours known, positive hours.
func NewRegression(history Series) (*Regression, error) {
	if known := history.Known(); known < MinRegressionHours {
		return nil, fmt.Errorf("forecast: zone %q has %d known hours, want at least %d for the %s model: %w",
			history.Zone, known, MinRegressionHours, RegressionModel, ErrShortHistory)
	}
	history = logSeries(history)
	r := &Regression{zone: history.Zone, profile: newWeekProfile(history)}
	v, how0 := window(history, history.Len(), &r.profile)
	orig := history.Values
	m24, d7 := dailyMeans(v)
	newest := len(orig) - 1
	for newest > 0 && math.IsNaN(orig[newest]) {
		newest--
	}
	weights := make([]float64, len(orig))
	for T := range weights {
		weights[T] = math.Exp2(-float64(newest-T) / halfLife.Hours())
	}
	usable := func(t, h int) bool {
		T := t + h
		return !math.IsNaN(orig[T]) && !math.IsNaN(orig[t]) && !math.IsNaN(orig[T-24*ceilDays(h)]) && !math.IsNaN(orig[T-168])
	}
	var x [features]float64
	var ratios [24][]weighted
	for h := 1; h <= MaxHorizon; h++ {
		var groups [25]normal // per hour of the day of the origin; 24: all hours
		for t := Lookback - 1; t+h < len(v); t++ {
			if !usable(t, h) {
				continue
			}
			r.features(&x, v, m24, d7, how0, t, h)
			groups[(how0+t)%24].add(&x, orig[t+h], weights[t+h])
		}
		for g := range 24 {
			groups[24].merge(&groups[g])
		}
		if groups[24].n < features*10 {
			return nil, fmt.Errorf("forecast: zone %q has %d usable rows for horizon %d h, want at least %d for the %s model: %w",
				history.Zone, groups[24].n, h, features*10, RegressionModel, ErrShortHistory)
		}
		all, err := groups[24].solve()
		if err != nil {
			return nil, fmt.Errorf("forecast: fitting the %s model of zone %q for horizon %d h: %w", RegressionModel, history.Zone, h, err)
		}
		coefs := &r.coef[h-1]
		for g := range 24 {
			coefs[g] = all
			if groups[g].n < minGroupRows {
				continue
			}
			if coefs[g], err = groups[g].solve(); err != nil {
				return nil, fmt.Errorf("forecast: fitting the %s model of zone %q for horizon %d h at %02d:00 UTC: %w", RegressionModel, history.Zone, h, g, err)
			}
		}
		// The MAPE correction of each hour's intercept.
		for g := range ratios {
			ratios[g] = ratios[g][:0]
		}
		for t := Lookback - 1; t+h < len(v); t++ {
			if !usable(t, h) {
				continue
			}
			g := (how0 + t) % 24
			r.features(&x, v, m24, d7, how0, t, h)
			q := math.Exp(orig[t+h] - dot(&coefs[g], &x))
			ratios[g] = append(ratios[g], weighted{q, weights[t+h] / q})
		}
		for g := range 24 {
			if len(ratios[g]) > 0 {
				coefs[g][0] += math.Log(weightedMedian(ratios[g]))
			}
		}
		r.rows += groups[24].n
	}
	return r, nil
}

// Name implements Model.
func (r *Regression) Name() string { return RegressionModel }

// Rows returns the number of training rows, summed over the horizons.
func (r *Regression) Rows() int { return r.rows }

// Predict implements Model.
func (r *Regression) Predict(recent Series, hours int) []float64 {
	v, how0 := window(logSeries(recent.tail(Lookback)), Lookback, &r.profile)
	m24, d7 := dailyMeans(v)
	t := len(v) - 1
	out := make([]float64, hours)
	var x [features]float64
	for h := 1; h <= hours; h++ {
		if h > MaxHorizon {
			out[h-1] = out[h-1-24]
			continue
		}
		r.features(&x, v, m24, d7, how0, t, h)
		out[h-1] = math.Exp(dot(&r.coef[h-1][(how0+t)%24], &x))
	}
	return out
}

func dot(c, x *[features]float64) float64 {
	var s float64
	for i := range features {
		s += c[i] * x[i]
	}
	return s
}

// features writes the inputs of a forecast from origin t for horizon h into
// x; v is the filled series, how0 the hour of the week of v[0], m24 and d7
// from dailyMeans(v).
func (r *Regression) features(x *[features]float64, v, m24, d7 []float64, how0, t, h int) {
	T := t + h
	k := ceilDays(h)
	x[0] = 1
	x[1] = v[t]
	x[2] = v[t-1]
	x[3] = v[T-24*k]
	x[4] = v[T-168]
	x[5] = m24[t]
	x[6] = d7[T-24*k]
	x[7] = d7[t-24]
	x[8] = r.profile.at(how0 + T)
	x[9] = r.profile.at(how0 + t)
}

// dailyMeans returns, for each index i, the mean of v over the 24 hours
// ending at i and the mean of v at i and the 6 same hours before it (NaN
// where the window starts before v).
func dailyMeans(v []float64) (m24, d7 []float64) {
	m24, d7 = make([]float64, len(v)), make([]float64, len(v))
	var sum float64
	for i, y := range v {
		sum += y
		if i >= 24 {
			sum -= v[i-24]
		}
		m24[i] = math.NaN()
		if i >= 23 {
			m24[i] = sum / 24
		}
		d7[i] = math.NaN()
		if i >= 6*24 {
			var s float64
			for j := range 7 {
				s += v[i-24*j]
			}
			d7[i] = s / 7
		}
	}
	return m24, d7
}

// logSeries returns a copy of s with the natural logarithm of each value;
// values that are not positive become NaN.
func logSeries(s Series) Series {
	out := s
	out.Values = make([]float64, len(s.Values))
	for i, v := range s.Values {
		if v > 0 {
			out.Values[i] = math.Log(v)
		} else {
			out.Values[i] = math.NaN()
		}
	}
	return out
}
