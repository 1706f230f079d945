package forecast

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestEvaluate(t *testing.T) {
	week := 7 * 24 * time.Hour
	const n = 3 * 7 * 24
	flat := synthetic("XX", n, func(int) float64 { return 200 })
	withGap := synthetic("XX", n, func(int) float64 { return 200 })
	for i := 2 * 7 * 24; i < 2*7*24+10; i++ {
		withGap.Values[i] = math.NaN()
	}
	tests := []struct {
		name   string
		s      Series
		from   time.Time
		models []Model
		want   []Score
	}{
		{
			name: "a constant 10% too high", s: flat, from: monday.Add(2 * week),
			models: []Model{NewYearlyAverage("XX", 220, 2024), Naive{}},
			want: []Score{
				{Model: YearlyAverageModel, MAPE: []float64{10, 10, 10}, Hours: []int{168, 168, 168}},
				{Model: NaiveModel, MAPE: []float64{0, 0, 0}, Hours: []int{168, 168, 168}},
			},
		},
		{
			name: "unknown hours are not scored", s: withGap, from: monday.Add(2 * week),
			models: []Model{NewYearlyAverage("XX", 150, 2024)},
			want:   []Score{{Model: YearlyAverageModel, MAPE: []float64{25, 25, 25}, Hours: []int{158, 158, 158}}},
		},
		{
			name: "hours with too little history before them are not scored", s: flat, from: monday,
			models: []Model{NewYearlyAverage("XX", 200, 2024)},
			want:   []Score{{Model: YearlyAverageModel, MAPE: []float64{0, 0, 0}, Hours: []int{167, 144, 120}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Evaluate(tc.s, tc.from, tc.from.Add(week), []int{1, 24, 48}, tc.models...)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(1e-9, 1e-9)); diff != "" {
				t.Errorf("Evaluate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReport(t *testing.T) {
	score := func(model string, mape ...float64) Score {
		return Score{Model: model, MAPE: mape, Hours: []int{10, 10}}
	}
	dec := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
	zones := []ZoneReport{
		{Zone: "AA", From: dec, To: dec.AddDate(0, 1, 0), Scores: []Score{score(RegressionModel, 2, 10), score(NaiveModel, 8, 8)}},
		{Zone: "BB", From: dec, To: dec.AddDate(0, 0, 7), Scores: []Score{score(RegressionModel, 4, 6), score(NaiveModel, 12, 12)}},
	}
	r := NewReport([]int{1, 24}, zones)
	wantMean := []Score{
		{Model: RegressionModel, MAPE: []float64{3, 8}, Hours: []int{20, 20}},
		{Model: NaiveModel, MAPE: []float64{10, 10}, Hours: []int{20, 20}},
	}
	if diff := cmp.Diff(wantMean, r.Mean); diff != "" {
		t.Errorf("Mean (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Loss{{Zone: "AA", Horizon: 24, Regression: 10, Naive: 8}}, r.Losses); diff != "" {
		t.Errorf("Losses (-want +got):\n%s", diff)
	}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(b.String(), "\n")[2:] {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	want := []string{
		"ZONE HELD OUT MODEL 1h 24h",
		"AA 2024-12 regression 2.0 10.0",
		"naive 8.0 8.0",
		"BB 2024-12-01..12-07 regression 4.0 6.0",
		"naive 12.0 12.0",
		"MEAN 2 zones regression 3.0 8.0",
		"naive 10.0 10.0",
		"",
		"regression beats naive in 3 of 4 zone-horizons; not in:",
		"AA 24h: regression 10.0, naive 8.0",
		"",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WriteTable (-want +got):\n%s", diff)
	}
	b.Reset()
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "<svg "); n != 3 {
		t.Errorf("WriteHTML drew %d charts, want 3 (the mean and one per zone)", n)
	}
}
