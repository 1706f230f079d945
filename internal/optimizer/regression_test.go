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
		{name: "per-replica metric", want: Regression{W: [4]float64{0, 1.8, 0.2, 0}}},
		{name: "total metric with offset", want: Regression{W: [4]float64{5, 1, 1, 0}}},
		{name: "negative slope", want: Regression{W: [4]float64{-2, -0.5, 3, 0}}},
		{name: "metric spread over the replicas", want: Regression{W: [4]float64{0, 0, 0, 1}}},
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
			// The ridge, scaled to the data, biases the weights by about 1e-3.
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 5e-3)); diff != "" {
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

// TestRegressionSpreadsLoad: a per-replica rate (m' = m·N/N') is learned
// exactly, also for steps far larger than those seen, which the seed's two
// averaging terms cannot represent.
func TestRegressionSpreadsLoad(t *testing.T) {
	var before, after []float64
	var n, next []int
	for i := range 60 {
		m := 5 + float64(i%11)
		a := 4 + i%5
		b := a + i%3 - 1
		before, n, next = append(before, m), append(n, a), append(next, b)
		after = append(after, m*float64(a)/float64(b))
	}
	r, err := FitRegression(before, after, n, next)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ n, next int }{{4, 8}, {8, 2}, {6, 12}} {
		want := 10 * float64(tc.n) / float64(tc.next)
		if got := r.Predict(10, tc.n, tc.next); math.Abs(got-want) > 1e-2*want {
			t.Errorf("Predict(10, %d, %d) = %v, want %v", tc.n, tc.next, got, want)
		}
	}
}

func TestClipTarget(t *testing.T) {
	cfg := Default([]string{"x"}, Target{Name: "lat", Min: 100, Max: 160}, 1, 10)
	for _, tc := range []struct{ in, want float64 }{
		{in: 90, want: 90},
		{in: 150, want: 150},
		{in: 220, want: 220},
		{in: 2000, want: 220},
	} {
		if got := cfg.clipTarget(tc.in); got != tc.want {
			t.Errorf("clipTarget(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
