package forecast

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// monday is a Monday midnight UTC, where synthetic series start.
var monday = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// synthetic returns a series of n hours from monday with y(i) = f(i).
func synthetic(zone string, n int, f func(i int) float64) Series {
	s := Series{Zone: zone, First: monday, Values: make([]float64, n)}
	for i := range s.Values {
		s.Values[i] = f(i)
	}
	return s
}

func daily(i int) float64 { return 300 + 100*math.Sin(2*math.Pi*float64(i%24)/24) }

func weekly(i int) float64 {
	y := daily(i)
	if (i/24)%7 >= 5 { // weekends are cleaner
		y -= 60
	}
	return y
}

func trend(i int) float64 { return daily(i) + 0.05*float64(i) }

// holes makes a share of the series' hours unknown, the same ones every run.
func holes(s Series, share float64) Series {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range s.Values {
		if rng.Float64() < share {
			s.Values[i] = math.NaN()
		}
	}
	return s
}

// TestModelsOnKnownSeries fits each model on a synthetic history whose
// continuation is known, and compares its 48-hour forecast with it.
func TestModelsOnKnownSeries(t *testing.T) {
	const weeks = 8
	n := weeks * 7 * 24
	tests := []struct {
		name      string
		f         func(int) float64
		holes     float64
		fit       func(Series) (Model, error)
		tolerance float64 // relative
	}{
		{"regression, pure daily cycle", daily, 0, regression, 1e-4},
		{"regression, daily and weekly cycle", weekly, 0, regression, 1e-4},
		{"regression, daily cycle and trend", trend, 0, regression, 0.002},
		{"regression, 10% of hours missing", daily, 0.1, regression, 1e-4},
		{"regression, weekly cycle, 10% of hours missing", weekly, 0.1, regression, 0.002},
		{"profile, pure daily cycle", daily, 0, profile, 1e-9},
		{"profile, 10% of hours missing", daily, 0.1, profile, 1e-9},
		{"naive, pure daily cycle", daily, 0, naive, 1e-9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			history := holes(synthetic("XX", n, tc.f), tc.holes)
			m, err := tc.fit(history)
			if err != nil {
				t.Fatalf("fit: %v", err)
			}
			got := m.Predict(history, 48)
			want := make([]float64, 48)
			for h := range want {
				want[h] = tc.f(n + h)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(tc.tolerance, 0)); diff != "" {
				t.Errorf("%s forecast of 48 h (-want +got):\n%s", m.Name(), diff)
			}
		})
	}
}

func regression(s Series) (Model, error) { return NewRegression(s) }
func profile(s Series) (Model, error)    { return NewProfile(s) }
func naive(Series) (Model, error)        { return Naive{}, nil }

// TestRegressionBeatsNaiveOnTrend checks that the regression learns what
// the naive forecast cannot: a rising level.
func TestRegressionBeatsNaiveOnTrend(t *testing.T) {
	n := 8 * 7 * 24
	s := synthetic("XX", n+24*7, trend)
	from := monday.Add(time.Duration(n) * time.Hour)
	m, err := NewRegression(s.Until(from))
	if err != nil {
		t.Fatal(err)
	}
	scores := Evaluate(s, from, from.Add(7*24*time.Hour), []int{24, 48}, m, Naive{})
	for k, h := range []int{24, 48} {
		if reg, naive := scores[0].MAPE[k], scores[1].MAPE[k]; reg >= naive/10 {
			t.Errorf("at %d h the regression's MAPE is %.3f%%, want under a tenth of the naive forecast's %.3f%%", h, reg, naive)
		}
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name    string
		hours   int
		want    string
		wantErr error
	}{
		{"no history", 0, "", ErrShortHistory},
		{"under a day", 23, "", ErrShortHistory},
		{"a day", 24, ProfileModel, nil},
		{"under four weeks", MinRegressionHours - 1, ProfileModel, nil},
		{"four weeks", MinRegressionHours, RegressionModel, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Fit(synthetic("XX", tc.hours, daily))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Fit error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && m.Name() != tc.want {
				t.Errorf("Fit chose %s, want %s", m.Name(), tc.want)
			}
		})
	}
}

// TestFitIgnoresHeldOut checks that a held-out month changes nothing the
// model learns from: a series whose held-out part is garbage fits as the
// clean one does.
func TestFitIgnoresHeldOut(t *testing.T) {
	n := 10 * 7 * 24
	clean := synthetic("XX", n, weekly)
	dirty := synthetic("XX", n, weekly)
	from, to := monday.Add(4*7*24*time.Hour), monday.Add(6*7*24*time.Hour)
	for i := dirty.Index(from); i < dirty.Index(to); i++ {
		dirty.Values[i] = 1e4
	}
	want, err := NewRegression(clean.Without(from, to))
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewRegression(dirty.Without(from, to))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Predict(clean, 48), got.Predict(clean, 48)); diff != "" {
		t.Errorf("forecast after fitting with a garbage held-out period (-want +got):\n%s", diff)
	}
}

func TestForecastPoints(t *testing.T) {
	history := synthetic("DE", 5*7*24, daily)
	reg, err := NewRegression(history)
	if err != nil {
		t.Fatal(err)
	}
	last := history.Last()
	at := func(h int) time.Time { return last.Add(time.Duration(h) * time.Hour) }
	point := func(h int, model, fallback string, grams float64) carbon.Point {
		return carbon.Point{Zone: "DE", Time: at(h), GramsPerKWh: grams, Kind: carbon.Forecast, Signal: carbon.Average,
			Source: SourcePrefix + model, Fallback: fallback}
	}
	marginal := history
	marginal.Signal = carbon.Marginal
	withSignal := func(p carbon.Point, s carbon.Signal) carbon.Point { p.Signal = s; return p }
	n := history.Len()
	tests := []struct {
		name    string
		model   Model
		recent  Series
		now     time.Time
		horizon time.Duration
		want    []carbon.Point
		wantErr error
	}{
		{
			name: "the hours after the history", model: reg, recent: history,
			now: at(1).Add(20 * time.Minute), horizon: 3 * time.Hour,
			want: []carbon.Point{point(1, RegressionModel, "", daily(n)), point(2, RegressionModel, "", daily(n+1)),
				point(3, RegressionModel, "", daily(n+2)), point(4, RegressionModel, "", daily(n+3))},
		},
		{
			name: "a history that ends hours before now", model: reg, recent: history,
			now: at(5), horizon: 2 * time.Hour,
			want: []carbon.Point{point(5, RegressionModel, "", daily(n+4)), point(6, RegressionModel, "", daily(n+5))},
		},
		{
			name: "a history that reaches into the hours asked for", model: Naive{}, recent: history,
			now: last, horizon: time.Hour,
			want: []carbon.Point{point(0, NaiveModel, "", daily(n-1))},
		},
		{
			name: "the signal of the history", model: Naive{}, recent: marginal,
			now: at(1), horizon: time.Hour,
			want: []carbon.Point{withSignal(point(1, NaiveModel, "", daily(n)), carbon.Marginal)},
		},
		{
			name: "a zone without history falls back to its yearly average", model: NewYearlyAverage("DE", 381, 2024), recent: Series{Zone: "DE"},
			now: at(1), horizon: 2 * time.Hour,
			want: []carbon.Point{
				point(1, YearlyAverageModel, `no hourly history of zone "DE": its 2024 yearly average for every hour`, 381),
				point(2, YearlyAverageModel, `no hourly history of zone "DE": its 2024 yearly average for every hour`, 381),
			},
		},
		{
			name: "a model that needs recent hours without any", model: reg, recent: Series{Zone: "DE"},
			now: at(1), horizon: time.Hour, wantErr: ErrNoRecent,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Forecast(tc.model, tc.recent, tc.now, tc.horizon)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Forecast error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(1e-4, 0)); diff != "" {
				t.Errorf("Forecast (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromPoints(t *testing.T) {
	h := func(i int) time.Time { return monday.Add(time.Duration(i) * time.Hour) }
	p := func(zone string, t time.Time, g float64) carbon.Point {
		return carbon.Point{Zone: zone, Time: t, GramsPerKWh: g, Signal: carbon.Average}
	}
	nan := math.NaN()
	tests := []struct {
		name    string
		points  []carbon.Point
		want    Series
		wantErr string
	}{
		{"none", nil, Series{Zone: "DE"}, ""},
		{
			"unordered, averaged per hour, gaps left unknown",
			[]carbon.Point{p("DE", h(3), 40), p("DE", h(0), 10), p("DE", h(0).Add(30*time.Minute), 20)},
			Series{Zone: "DE", First: h(0), Values: []float64{15, nan, nan, 40}, Signal: carbon.Average}, "",
		},
		{"another zone", []carbon.Point{p("DE", h(0), 1), p("FR", h(1), 1)}, Series{}, `point 1 of the history of zone "DE" is of zone "FR"`},
		{"not a number", []carbon.Point{p("DE", h(0), nan)}, Series{}, "has intensity NaN, want a finite number"},
		{
			"mixed signals",
			[]carbon.Point{p("DE", h(0), 1), {Zone: "DE", Time: h(1), GramsPerKWh: 1, Signal: carbon.Marginal}},
			Series{}, `has signal "marginal", the first "average"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromPoints("DE", tc.points)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FromPoints error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("FromPoints (-want +got):\n%s", diff)
			}
		})
	}
}
