package trafficaware

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestScore(t *testing.T) {
	clusters := []placement.Cluster{{Name: "grenoble"}, {Name: "lille"}, {Name: "nantes"}, {Name: "rennes"}}
	tests := []struct {
		name    string
		traffic map[string]float64
		want    []int64 // grenoble, lille, nantes, rennes
	}{
		{name: "busiest first", traffic: map[string]float64{"lille": 40, "nantes": 10}, want: []int64{0, 100, 25, 0}},
		{name: "fractional traffic ranks", traffic: map[string]float64{"lille": 0.2, "nantes": 0.1}, want: []int64{0, 100, 50, 0}},
		{name: "bad values count as none", traffic: map[string]float64{"grenoble": math.NaN(), "lille": -3, "rennes": 5}, want: []int64{0, 0, 0, 100}},
		{name: "no traffic", want: []int64{0, 0, 0, 0}},
	}
	p := &TrafficAware{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &placement.Workload{Key: "web/front"}
			s := placement.NewSnapshot(clusters, nil, map[string]map[string]float64{w.Key: tc.traffic, "web/other": {"grenoble": 1000}})
			got := make([]int64, len(s.Clusters))
			for i, c := range s.Clusters {
				v, st := p.Score(t.Context(), w, c, s)
				if !st.IsSuccess() {
					t.Fatalf("Score() status = %+v", st)
				}
				got[i] = v
			}
			if st := p.NormalizeScore(t.Context(), w, s.Clusters, got); !st.IsSuccess() {
				t.Fatalf("NormalizeScore() status = %+v", st)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
