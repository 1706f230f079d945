package carbon_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
)

func TestIntegral(t *testing.T) {
	in := carbon.NewIntensities(hours("AA", 100, 200))
	type result struct {
		Integral float64
		Unknown  int
		OK       bool
	}
	tests := []struct {
		name     string
		zone     string
		from, to time.Time
		want     result
	}{
		{name: "whole hours", zone: "AA", from: t0, to: t0.Add(2 * time.Hour), want: result{300, 0, true}},
		{name: "partial hours count for their fraction", zone: "AA", from: t0.Add(30 * time.Minute), to: t0.Add(90 * time.Minute), want: result{150, 0, true}},
		{name: "hours past the last count at the mean", zone: "AA", from: t0.Add(time.Hour), to: t0.Add(3 * time.Hour), want: result{350, 1, true}},
		{name: "unknown zone", zone: "BB", from: t0, to: t0.Add(time.Hour), want: result{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, unknown, ok := in.Integral(tc.zone, tc.from, tc.to)
			if diff := cmp.Diff(tc.want, result{v, unknown, ok}); diff != "" {
				t.Errorf("Integral() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
