package carbon

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestHourly(t *testing.T) {
	h := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	pt := func(zone string, at time.Time, g float64, kind Kind) Point {
		return Point{Zone: zone, Time: at, GramsPerKWh: g, Kind: kind, Signal: Marginal, Source: "s"}
	}
	tests := []struct {
		name string
		in   []Point
		want []Point
	}{
		{name: "empty", want: []Point{}},
		{
			name: "five-minute points become the hour's mean",
			in:   []Point{pt("A", h.Add(5*time.Minute), 100, Measured), pt("A", h.Add(10*time.Minute), 200, Measured), pt("A", h.Add(65*time.Minute), 50, Measured)},
			want: []Point{pt("A", h, 150, Measured), pt("A", h.Add(time.Hour), 50, Measured)},
		},
		{
			name: "an hour with an estimated part is estimated",
			in:   []Point{pt("A", h, 100, Measured), pt("A", h.Add(30*time.Minute), 300, Estimated)},
			want: []Point{pt("A", h, 200, Estimated)},
		},
		{
			name: "other time zones are UTC hours; zones stay apart, sorted",
			in: []Point{
				pt("B", h.In(time.FixedZone("CET", 3600)), 10, Forecast),
				pt("A", h.Add(time.Hour), 20, Forecast),
				pt("A", h.Add(20*time.Minute), 30, Forecast),
			},
			want: []Point{pt("A", h, 30, Forecast), pt("A", h.Add(time.Hour), 20, Forecast), pt("B", h, 10, Forecast)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Hourly(tc.in)); diff != "" {
				t.Errorf("Hourly() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemory(t *testing.T) {
	h := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(h.Add(90 * time.Minute))
	m := NewMemory("sim", clk)
	m.Add(Point{Zone: "NL", Time: h, GramsPerKWh: 300}, Point{Zone: "NL", Time: h.Add(time.Hour), GramsPerKWh: 280},
		Point{Zone: "NL", Time: h.Add(2 * time.Hour), GramsPerKWh: 260})
	m.SetForecast("NL", []Point{{Time: h.Add(time.Hour), GramsPerKWh: 275}, {Time: h.Add(2 * time.Hour), GramsPerKWh: 250}, {Time: h.Add(3 * time.Hour), GramsPerKWh: 240}})
	want := func(at time.Time, g float64, kind Kind) Point {
		return Point{Zone: "NL", Time: at, GramsPerKWh: g, Kind: kind, Signal: Average, Source: "sim"}
	}

	latest, err := m.Latest(t.Context(), "NL")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want(h.Add(time.Hour), 280, Measured), latest); diff != "" {
		t.Errorf("Latest (-want +got):\n%s", diff)
	}
	hist, err := m.History(t.Context(), "NL", h, h.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Point{want(h, 300, Measured), want(h.Add(time.Hour), 280, Measured)}, hist); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	fc, err := m.Forecast(t.Context(), "NL", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Point{want(h.Add(time.Hour), 275, Forecast), want(h.Add(2*time.Hour), 250, Forecast)}, fc); diff != "" {
		t.Errorf("Forecast (-want +got):\n%s", diff)
	}

	tests := []struct {
		name string
		prep func()
		call func() error
		want error
	}{
		{name: "a zone with a forecast only", prep: func() { m.SetForecast("DE", []Point{{Time: h.Add(2 * time.Hour), GramsPerKWh: 300}}) },
			call: func() error { _, err := m.Latest(t.Context(), "DE"); return err }, want: ErrNoData},
		{name: "unknown zone", call: func() error { _, err := m.Latest(t.Context(), "FR"); return err }, want: ErrUnknownZone},
		{name: "before the first hour", prep: func() { clk.SetTime(h.Add(-time.Hour)) }, call: func() error { _, err := m.Latest(t.Context(), "NL"); return err }, want: ErrNoData},
		{name: "outage", prep: func() { m.SetError(ErrNoData) }, call: func() error { _, err := m.History(t.Context(), "NL", h, h); return err }, want: ErrNoData},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.prep != nil {
				tc.prep()
			}
			if err := tc.call(); !errors.Is(err, tc.want) {
				t.Errorf("error = %v, want %v", err, tc.want)
			}
		})
	}
}
