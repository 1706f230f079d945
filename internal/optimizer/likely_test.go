package optimizer

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// steps returns the residuals lo, lo+1, ..., hi.
func steps(lo, hi int) []float64 {
	var r []float64
	for v := lo; v <= hi; v++ {
		r = append(r, float64(v))
	}
	return r
}

func TestInBandProbability(t *testing.T) {
	for _, tc := range []struct {
		name      string
		residuals []float64
		predicted float64
		want      float64
	}{
		// band [40, 100], residuals -15..15 (31 of them).
		{name: "middle", residuals: steps(-15, 15), predicted: 70, want: 1},
		{name: "on the maximum: the residuals up to 0", residuals: steps(-15, 15), predicted: 100, want: 16.0 / 31},
		{name: "on the minimum: the residuals from 0", residuals: steps(-15, 15), predicted: 40, want: 16.0 / 31},
		{name: "far above", residuals: steps(-15, 15), predicted: 200, want: 0},
		{name: "edges count as in", residuals: []float64{-10, 0, 10}, predicted: 90, want: 1},
		{name: "ties at an edge", residuals: []float64{10, 10, 10, 20}, predicted: 90, want: 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inBandProbability(tc.residuals, tc.predicted, 40, 100)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("inBandProbability (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecideLikely: with held-out residuals the advice is the fewest
// replicas likeliest to land in the band, and a miss the model did not
// foresee adds a replica. The predictor is queue (load / replicas × 10),
// the band [40, 100], the deltas 2 down and 3 up.
func TestDecideLikely(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rule      Rule
		residuals []float64
		last      Sample
		want      int
	}{
		// load 50 at 5: 4 -> 125, 5 -> 100 (in band by 16 of 31
		// residuals), 6 -> 83 (all 31), 7 -> 71 (all). The fixed margin
		// (0 here) would take 5.
		{name: "edge of the band is not likely enough", residuals: steps(-15, 15), last: Sample{Replicas: 5, Inputs: []float64{50}}, want: 6},
		{name: "fewer than 20 residuals: the margin rule", residuals: steps(-5, 5), last: Sample{Replicas: 5, Inputs: []float64{50}}, want: 5},
		// load 30 at 5: 3 -> 100 (16 of 31), 4 -> 75 (all): 4.
		{name: "scale down to the likeliest", residuals: steps(-15, 15), last: Sample{Replicas: 5, Inputs: []float64{30}}, want: 4},
		// residuals -50..50: 6, 7 and 8 are in band by 60 of 101 each,
		// 5 by 51: the fewest of the best.
		{name: "tie: the fewest", residuals: steps(-50, 50), last: Sample{Replicas: 5, Inputs: []float64{50}}, want: 6},
		// load 30 at 5 observed at 120, above the band: the model says 4,
		// which the miss overrules with one more than 5.
		{name: "miss not foreseen: one more", residuals: steps(-15, 15), last: Sample{Replicas: 5, Inputs: []float64{30}, Target: 120}, want: 6},
		// load 60: 7 -> 86 (30 of 31), 8 -> 75 (all): the model scales up
		// by itself.
		{name: "miss foreseen: the model's count", residuals: steps(-15, 15), last: Sample{Replicas: 5, Inputs: []float64{60}, Target: 120}, want: 8},
		{name: "miss at max replicas", residuals: steps(-15, 15), last: Sample{Replicas: 10, Inputs: []float64{30}, Target: 120}, want: 10},
		{name: "seed rule: no miss rule", rule: RuleSeed, last: Sample{Replicas: 5, Inputs: []float64{30}, Target: 120}, want: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.rule != "" {
				cfg.Rule = tc.rule
			}
			st := Status{Phase: PhaseProduction, Predictor: queue{}, Residuals: tc.residuals}
			a, _ := Decide(cfg, st, tc.last, State{}, t0)
			if diff := cmp.Diff(tc.want, a.Replicas); diff != "" {
				t.Errorf("replicas (-want +got):\n%s\nreason: %s", diff, a.Reason)
			}
			if !a.Valid || a.PredictedTarget == nil {
				t.Errorf("advice %+v: want valid with a prediction", a)
			}
		})
	}
}

func TestTrimmedRMS(t *testing.T) {
	for _, tc := range []struct {
		name      string
		residuals []float64
		want      float64
	}{
		{name: "fewer than 20: nothing left out", residuals: []float64{-3, 4}, want: math.Sqrt(12.5)},
		// 1..19 and one 1000: the largest 5 % (one) is left out.
		{name: "the largest left out", residuals: append(steps(1, 19), -1000), want: math.Sqrt(130)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, trimmedRMS(tc.residuals), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("trimmedRMS (-want +got):\n%s", diff)
			}
		})
	}
}
