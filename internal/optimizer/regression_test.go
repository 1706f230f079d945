package optimizer

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestFitRegression(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Regression
	}{
		{name: "per-replica metric", want: Regression{W: [3]float64{0, 1.8, 0.2}}},
		{name: "total metric with offset", want: Regression{W: [3]float64{5, 1, 1}}},
		{name: "negative slope", want: Regression{W: [3]float64{-2, -0.5, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after []float64
			var n, next []int
			for i := range 60 {
				m := 10 + float64(i%13)*3
				a, b := 1+i%7, 1+(i*5)%9
				before, n, next = append(before, m), append(n, a), append(next, b)
				after = append(after, tc.want.Predict(m, a, b))
			}
			got, err := FitRegression(before, after, n, next)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-3)); diff != "" {
				t.Errorf("weights (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFitRegressionUnchangedReplicas: when no pair changed the replica
// count the slopes are not separately identified; the ridge still gives a
// finite fit that predicts the unchanged case.
func TestFitRegressionUnchangedReplicas(t *testing.T) {
	before := []float64{1, 2, 3, 4}
	after := []float64{2, 4, 6, 8}
	n := []int{3, 3, 3, 3}
	got, err := FitRegression(before, after, n, n)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Predict(5, 3, 3); math.Abs(p-10) > 1e-3 {
		t.Errorf("Predict(5, 3, 3) = %v, want 10", p)
	}
	if _, err := FitRegression(nil, nil, nil, nil); err == nil {
		t.Error("FitRegression with no pairs: no error")
	}
}
