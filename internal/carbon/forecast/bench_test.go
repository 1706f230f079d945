package forecast

import (
	"testing"

	"github.com/meridian-dev/meridian/internal/carbon/offline"
)

// offlineSeries returns the zone's hourly offline data as a Series.
func offlineSeries(b *testing.B, zone string) Series {
	b.Helper()
	data, err := offline.Default()
	if err != nil {
		b.Fatal(err)
	}
	rec, ok, err := data.Hourly(zone)
	if err != nil || !ok {
		b.Fatalf("hourly data of zone %q: ok %v, %v", zone, ok, err)
	}
	s := Series{Zone: zone, First: rec.First, Values: make([]float64, len(rec.Values))}
	for i, v := range rec.Values {
		s.Values[i] = float64(v)
	}
	return s
}

// BenchmarkFitRegression fits one zone's regression on its whole record
// (DE, four years of hours).
func BenchmarkFitRegression(b *testing.B) {
	s := offlineSeries(b, "DE")
	b.ResetTimer()
	for b.Loop() {
		if _, err := NewRegression(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkForecast48h forecasts one zone 48 hours ahead from its fitted
// regression: what a scheduler does per zone and decision.
func BenchmarkForecast48h(b *testing.B) {
	s := offlineSeries(b, "DE")
	m, err := NewRegression(s)
	if err != nil {
		b.Fatal(err)
	}
	recent := s.Until(s.Last()) // the last week is what Predict reads
	b.ResetTimer()
	for b.Loop() {
		m.Predict(recent, 48)
	}
}
