package forecast

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/meridian-dev/meridian/internal/carbon"
)

func TestSource(t *testing.T) {
	const weeks = 6
	n := weeks * 7 * 24
	now := monday.Add(time.Duration(n)*time.Hour + 20*time.Minute) // inside hour n
	clk := clocktesting.NewFakePassiveClock(now)
	base := carbon.NewMemory("memory", clk)
	for i := range n + 1 {
		base.Add(carbon.Point{Zone: "DE", Time: monday.Add(time.Duration(i) * time.Hour), GramsPerKWh: weekly(i)})
	}
	for i := range 3 * 7 * 24 { // the offline data's answer for a zone with only a yearly average
		base.Add(carbon.Point{Zone: "FR", Time: monday.Add(time.Duration(n-i) * time.Hour), GramsPerKWh: 31, Kind: carbon.YearlyAverage})
	}
	for i := range 5 {
		base.Add(carbon.Point{Zone: "SG", Time: monday.Add(time.Duration(n-i) * time.Hour), GramsPerKWh: 400})
	}
	yearly := func(zone string, year int) (float64, int, bool) {
		if zone == "FR" {
			return 33, 2023, true
		}
		return 0, 0, false
	}
	at := func(i int) time.Time { return monday.Add(time.Duration(i) * time.Hour) }
	point := func(i int, model, fallback string, grams float64) carbon.Point {
		return carbon.Point{Zone: "", Time: at(i), GramsPerKWh: grams, Kind: carbon.Forecast, Signal: carbon.Average,
			Source: SourcePrefix + model, Fallback: fallback}
	}
	zoned := func(zone string, pts ...carbon.Point) []carbon.Point {
		for i := range pts {
			pts[i].Zone = zone
		}
		return pts
	}
	tests := []struct {
		name    string
		zone    string
		yearly  func(string, int) (float64, int, bool)
		want    []carbon.Point
		wantErr error
	}{
		{
			name: "a zone with weeks of history: the regression, from the current hour",
			zone: "DE",
			want: zoned("DE", point(n, RegressionModel, "", weekly(n)), point(n+1, RegressionModel, "", weekly(n+1)),
				point(n+2, RegressionModel, "", weekly(n+2))),
		},
		{
			name: "a zone with too short a history falls back to its yearly average", zone: "SG",
			yearly: func(string, int) (float64, int, bool) { return 408, 2024, true },
			want: zoned("SG",
				point(n, YearlyAverageModel, `no hourly history of zone "SG": its 2024 yearly average for every hour`, 408),
				point(n+1, YearlyAverageModel, `no hourly history of zone "SG": its 2024 yearly average for every hour`, 408),
				point(n+2, YearlyAverageModel, `no hourly history of zone "SG": its 2024 yearly average for every hour`, 408)),
		},
		{"too short a history without a fall-back", "SG", nil, nil, ErrShortHistory},
		{
			name: "a zone the base knows only by its yearly average", zone: "FR", yearly: yearly,
			want: zoned("FR",
				point(n, YearlyAverageModel, `no hourly history of zone "FR": its 2023 yearly average for every hour`, 33),
				point(n+1, YearlyAverageModel, `no hourly history of zone "FR": its 2023 yearly average for every hour`, 33),
				point(n+2, YearlyAverageModel, `no hourly history of zone "FR": its 2023 yearly average for every hour`, 33)),
		},
		{
			name: "a zone the base does not know, with a yearly average", zone: "IS",
			yearly: func(string, int) (float64, int, bool) { return 28, 2025, true },
			want: zoned("IS",
				point(n, YearlyAverageModel, `no hourly history of zone "IS": its 2025 yearly average for every hour`, 28),
				point(n+1, YearlyAverageModel, `no hourly history of zone "IS": its 2025 yearly average for every hour`, 28),
				point(n+2, YearlyAverageModel, `no hourly history of zone "IS": its 2025 yearly average for every hour`, 28)),
		},
		{"a zone nobody knows", "XX", yearly, nil, carbon.ErrUnknownZone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Source{Base: base, Clock: clk, Yearly: tc.yearly}
			got, err := s.Forecast(t.Context(), tc.zone, 2*time.Hour)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Forecast error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(1e-4, 0)); diff != "" {
				t.Errorf("Forecast (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSourceRefit checks that a Source keeps its model for Refit and then
// fits again, and that a failing base is reported.
func TestSourceRefit(t *testing.T) {
	n := 5 * 7 * 24
	clk := clocktesting.NewFakePassiveClock(monday.Add(time.Duration(n) * time.Hour))
	base := carbon.NewMemory("memory", clk)
	for i := range n + 1 {
		base.Add(carbon.Point{Zone: "DE", Time: monday.Add(time.Duration(i) * time.Hour), GramsPerKWh: daily(i)})
	}
	s := &Source{Base: base, Clock: clk, Refit: time.Hour}
	if _, err := s.Forecast(t.Context(), "DE", time.Hour); err != nil {
		t.Fatal(err)
	}
	first := s.models["DE"].model
	clk.SetTime(clk.Now().Add(30 * time.Minute))
	if _, err := s.Forecast(t.Context(), "DE", time.Hour); err != nil {
		t.Fatal(err)
	}
	if s.models["DE"].model != first {
		t.Errorf("the model was fitted again within Refit")
	}
	clk.SetTime(clk.Now().Add(time.Hour))
	outage := errors.New("service down")
	base.SetError(outage)
	if _, err := s.Forecast(t.Context(), "DE", time.Hour); !errors.Is(err, outage) {
		t.Errorf("Forecast with the base down: error %v, want %v", err, outage)
	}
	base.SetError(nil)
	if _, err := s.Forecast(t.Context(), "DE", time.Hour); err != nil {
		t.Fatal(err)
	}
	if s.models["DE"].model == first {
		t.Errorf("the model was not fitted again after Refit")
	}
}
