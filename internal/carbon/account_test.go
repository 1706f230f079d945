package carbon_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meridian-dev/meridian/internal/carbon"
)

func TestAccount(t *testing.T) {
	measured := func(pts []carbon.Point) []carbon.Point {
		for i := range pts {
			pts[i].Kind = carbon.Measured
		}
		return pts
	}
	tests := []struct {
		name       string
		points     []carbon.Point
		zone       string
		watts      float64
		start, end time.Time
		want       carbon.Realised
		complete   bool
		err        error
	}{{
		name:   "whole hours, every one measured: 1 kW over 100, 200 and 300 g/kWh",
		points: measured(hours("NL", 100, 200, 300, 900)),
		zone:   "NL", watts: 1000, start: t0, end: t0.Add(3 * time.Hour),
		want:     carbon.Realised{Grams: 600, KWh: 3, Hours: 3, Known: 3, Kinds: map[carbon.Kind]int{carbon.Measured: 3}, Source: "test", Signal: carbon.Average},
		complete: true,
	}, {
		name:   "part hours count their part: 30 min of 100 and 30 min of 200 at 500 W",
		points: measured(hours("NL", 100, 200)),
		zone:   "NL", watts: 500, start: t0.Add(30 * time.Minute), end: t0.Add(90 * time.Minute),
		want:     carbon.Realised{Grams: 75, KWh: 0.5, Hours: 2, Known: 2, Kinds: map[carbon.Kind]int{carbon.Measured: 2}, Source: "test", Signal: carbon.Average},
		complete: true,
	}, {
		name:   "an hour not yet published counts at the mean of the known ones and makes the figure incomplete",
		points: measured(hours("NL", 100, 300)),
		zone:   "NL", watts: 1000, start: t0, end: t0.Add(3 * time.Hour),
		want: carbon.Realised{Grams: 600, KWh: 3, Hours: 3, Known: 2, Kinds: map[carbon.Kind]int{carbon.Measured: 2}, Source: "test", Signal: carbon.Average},
	}, {
		name:   "other zones' points are not used",
		points: concat(measured(hours("DE", 500, 500)), measured(hours("NL", 100, 100))),
		zone:   "NL", watts: 1000, start: t0, end: t0.Add(2 * time.Hour),
		want:     carbon.Realised{Grams: 200, KWh: 2, Hours: 2, Known: 2, Kinds: map[carbon.Kind]int{carbon.Measured: 2}, Source: "test", Signal: carbon.Average},
		complete: true,
	}, {
		name:   "replayed hours are known but not measured",
		points: hoursOf("NL", carbon.Average, "offline", 100, 100),
		zone:   "NL", watts: 1000, start: t0, end: t0.Add(2 * time.Hour),
		want: carbon.Realised{Grams: 200, KWh: 2, Hours: 2, Known: 2, Kinds: map[carbon.Kind]int{carbon.Forecast: 2}, Source: "offline", Signal: carbon.Average},
	}, {
		name:   "no point of the zone",
		points: hours("DE", 100),
		zone:   "NL", watts: 1000, start: t0, end: t0.Add(time.Hour),
		err: carbon.ErrNoData,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := carbon.Account(tc.points, tc.zone, tc.watts, tc.start, tc.end)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Account error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Account (-want +got):\n%s", diff)
			}
			if got.Complete() != tc.complete {
				t.Errorf("Complete() = %t, want %t (%s)", got.Complete(), tc.complete, got)
			}
		})
	}
	if _, err := carbon.Account(hours("NL", 100), "NL", 1000, t0, t0); err == nil {
		t.Error("Account of an empty run: no error")
	}
}
