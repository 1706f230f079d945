package nearestfirst

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// latency is Table II of seed 001 (Grid'5000 round-trip times), one
// direction only: Between looks both ways.
var latency = placement.Latency{
	"rennes":     {"nantes": ms(2.16), "lille": ms(23.26), "luxembourg": ms(27.41), "nancy": ms(25.18), "grenoble": ms(17.45)},
	"nantes":     {"lille": ms(22.21), "luxembourg": ms(26.29), "nancy": ms(24.16), "grenoble": ms(16.38)},
	"lille":      {"luxembourg": ms(11.88), "nancy": ms(9.70), "grenoble": ms(12.06)},
	"luxembourg": {"nancy": ms(2.90), "grenoble": ms(15.33)},
	"nancy":      {"grenoble": ms(13.14)},
}

func TestOrigin(t *testing.T) {
	traffic := map[string]map[string]float64{"web/front": {"lille": 3, "grenoble": 9}}
	tests := []struct {
		name   string
		w      placement.Workload
		want   string
		wantOK bool
	}{
		{name: "first preferred location", w: placement.Workload{Key: "web/front", Locations: []string{"nantes", "rennes"}, Current: map[string]int32{"lille": 3}}, want: "nantes", wantOK: true},
		{name: "busiest cluster", w: placement.Workload{Key: "web/front", Current: map[string]int32{"lille": 3}}, want: "grenoble", wantOK: true},
		{name: "cluster with most replicas", w: placement.Workload{Key: "web/back", Current: map[string]int32{"lille": 3, "nancy": 5, "rennes": 5}}, want: "nancy", wantOK: true},
		{name: "none", w: placement.Workload{Key: "web/back", Current: map[string]int32{"lille": 0}}, wantOK: false},
	}
	s := placement.NewSnapshot(nil, latency, traffic)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Origin(&tc.w, s)
			if diff := cmp.Diff([]any{tc.want, tc.wantOK}, []any{got, ok}); diff != "" {
				t.Errorf("Origin() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScore(t *testing.T) {
	names := []string{"grenoble", "lille", "luxembourg", "nancy", "nantes", "rennes", "unknown"}
	var clusters []placement.Cluster
	for _, n := range names {
		clusters = append(clusters, placement.Cluster{Name: n})
	}
	s := placement.NewSnapshot(clusters, latency, nil)
	tests := []struct {
		name string
		w    placement.Workload
		want []int64 // in names' order
	}{
		{
			// From Rennes: Nantes 2.16, Grenoble 17.45, Lille 23.26, Nancy
			// 25.18, Luxembourg 27.41 (the farthest, 0); unknown 0.
			name: "from rennes", w: placement.Workload{Locations: []string{"rennes"}},
			want: []int64{36, 15, 0, 8, 92, 100, 0},
		},
		{
			name: "from nantes", w: placement.Workload{Locations: []string{"nantes"}},
			want: []int64{37, 15, 0, 8, 100, 91, 0},
		},
		{name: "no origin", w: placement.Workload{}, want: []int64{0, 0, 0, 0, 0, 0, 0}},
	}
	p := &NearestFirst{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]int64, len(s.Clusters))
			for i, c := range s.Clusters {
				v, st := p.Score(t.Context(), &tc.w, c, s)
				if !st.IsSuccess() {
					t.Fatalf("Score() status = %+v", st)
				}
				got[i] = v
			}
			if st := p.NormalizeScore(t.Context(), &tc.w, s.Clusters, got); !st.IsSuccess() {
				t.Fatalf("NormalizeScore() status = %+v", st)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
