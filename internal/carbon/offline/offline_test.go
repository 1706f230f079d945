package offline

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/meridian-dev/meridian/internal/carbon"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestDefaultDataset(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	// The issue asks for these zones over 2021-2023 at least.
	for _, zone := range []string{"BR", "ES", "NO", "US-CAL-CISO", "DE", "GB", "JP-TK", "SG"} {
		t.Run(zone, func(t *testing.T) {
			s, ok, err := d.Hourly(zone)
			if err != nil || !ok {
				t.Fatalf("Hourly(%q) = %v, %v", zone, ok, err)
			}
			got := struct{ First, Last time.Time }{s.First, s.Last()}
			if got.First.After(utc("2021-01-01T00:00:00Z")) || got.Last.Before(utc("2023-12-31T23:00:00Z")) {
				t.Errorf("record spans %s to %s, want 2021-01-01 to 2023-12-31 at least", got.First, got.Last)
			}
			missing := 0
			for _, v := range s.Values {
				if v != v {
					missing++
				}
			}
			if diff := cmp.Diff(0, missing); diff != "" {
				t.Errorf("hours without value (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(d.YearlyZones()); n < 300 {
		t.Errorf("yearly averages cover %d zones, want every Electricity Maps zone (over 300)", n)
	}
}

func TestRecorded(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, zone string
		at         time.Time
		want       time.Time
	}{
		{name: "inside the record", zone: "NO", at: utc("2022-06-01T10:30:00Z"), want: utc("2022-06-01T10:00:00Z")},
		{name: "after: same weekday and hour, whole 52-week periods back", zone: "DE", at: utc("2026-11-23T12:20:00Z"), want: utc("2024-11-25T12:00:00Z")},
		{name: "after a record that ends in 2023", zone: "NO", at: utc("2026-11-23T12:00:00Z"), want: utc("2023-11-27T12:00:00Z")},
		{name: "before: the latest such hour inside the record", zone: "NO", at: utc("2019-06-03T00:00:00Z"), want: utc("2023-05-29T00:00:00Z")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _, err := d.Hourly(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			got := Recorded(s, tc.at)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Recorded(%s) (-want +got):\n%s", tc.at, diff)
			}
			if got.Weekday() != tc.at.Weekday() || got.Hour() != tc.at.Hour() {
				t.Errorf("Recorded(%s) = %s, a %s at %d h; want the same weekday and hour", tc.at, got, got.Weekday(), got.Hour())
			}
		})
	}
}

func TestSource(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	p := func(zone, at string, g float64, kind carbon.Kind) carbon.Point {
		return carbon.Point{Zone: zone, Time: utc(at), GramsPerKWh: g, Kind: kind, Signal: carbon.Average, Source: Name}
	}
	tests := []struct {
		name    string
		now     string
		call    func(t *testing.T, s *Source) ([]carbon.Point, error)
		want    []carbon.Point
		wantErr error
	}{
		{
			name: "latest inside the record",
			now:  "2021-01-01T00:40:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				pt, err := s.Latest(t.Context(), "NO")
				return []carbon.Point{pt}, err
			},
			want: []carbon.Point{p("NO", "2021-01-01T00:00:00Z", 27.49, carbon.Measured)},
		},
		{
			name: "latest now is replayed from the record",
			now:  "2026-11-23T12:20:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				pt, err := s.Latest(t.Context(), "DE")
				return []carbon.Point{pt}, err
			},
			want: []carbon.Point{p("DE", "2026-11-23T12:00:00Z", 250.08, carbon.Replay)},
		},
		{
			name: "estimated hours say so",
			now:  "2021-01-01T00:00:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				return s.History(t.Context(), "IN-WE", utc("2021-01-01T00:00:00Z"), utc("2021-01-01T01:00:00Z"))
			},
			want: []carbon.Point{p("IN-WE", "2021-01-01T00:00:00Z", 762.68, carbon.Estimated)},
		},
		{
			name: "history",
			now:  "2026-11-23T12:20:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				return s.History(t.Context(), "NO", utc("2021-01-01T00:10:00Z"), utc("2021-01-01T02:00:00Z"))
			},
			want: []carbon.Point{p("NO", "2021-01-01T00:00:00Z", 27.49, carbon.Measured), p("NO", "2021-01-01T01:00:00Z", 27.43, carbon.Measured)},
		},
		{
			name: "forecast is the replay of the hours ahead",
			now:  "2026-11-23T12:20:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				return s.Forecast(t.Context(), "DE", 2*time.Hour)
			},
			want: []carbon.Point{
				p("DE", "2026-11-23T12:00:00Z", 250.08, carbon.Replay),
				p("DE", "2026-11-23T13:00:00Z", 268.27, carbon.Replay),
				p("DE", "2026-11-23T14:00:00Z", 294.57, carbon.Replay),
			},
		},
		{
			name: "inside the record a forecast is still labelled a replay",
			now:  "2021-01-01T00:00:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				return s.Forecast(t.Context(), "NO", time.Hour-time.Minute)
			},
			want: []carbon.Point{p("NO", "2021-01-01T00:00:00Z", 27.49, carbon.Replay)},
		},
		{
			name: "a zone without hourly data answers its yearly average, the nearest year",
			now:  "2026-11-23T12:20:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				pt, err := s.Latest(t.Context(), "FR")
				return []carbon.Point{pt}, err
			},
			want: []carbon.Point{p("FR", "2026-11-23T12:00:00Z", 31, carbon.YearlyAverage)},
		},
		{
			name: "an unknown zone",
			now:  "2026-11-23T12:20:00Z",
			call: func(t *testing.T, s *Source) ([]carbon.Point, error) {
				return s.Forecast(t.Context(), "XX-NOWHERE", time.Hour)
			},
			wantErr: carbon.ErrUnknownZone,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(d, clocktesting.NewFakePassiveClock(utc(tc.now)))
			got, err := tc.call(t, s)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-4)); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkForecast48h(b *testing.B) {
	d, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	s := New(d, clocktesting.NewFakePassiveClock(utc("2026-11-23T12:20:00Z")))
	if _, err := s.Forecast(b.Context(), "DE", 48*time.Hour); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		_, _ = s.Forecast(b.Context(), "DE", 48*time.Hour)
	}
}
