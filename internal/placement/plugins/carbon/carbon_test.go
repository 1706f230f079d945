package carbon

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	intensity "github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/placement"
)

var t0 = time.Date(2026, 11, 23, 10, 20, 0, 0, time.UTC)

// hours returns the zone's intensities from t0's hour, one per hour.
func hours(zone string, grams ...float64) []intensity.Point {
	pts := make([]intensity.Point, len(grams))
	for i, g := range grams {
		pts[i] = intensity.Point{Zone: zone, Time: t0.Add(time.Duration(i) * time.Hour), GramsPerKWh: g, Source: "test"}
	}
	return pts
}

func TestScore(t *testing.T) {
	clusters := []placement.Cluster{{Name: "paris", GridZone: "FR"}, {Name: "frankfurt", GridZone: "DE"}, {Name: "oslo", GridZone: "NO"}, {Name: "lab"}}
	tests := []struct {
		name   string
		points []intensity.Point
		at     time.Time
		want   []int64 // frankfurt, lab, oslo, paris (sorted by name)
	}{
		{
			name:   "cleanest first, proportionally",
			points: append(append(hours("FR", 60, 60), hours("DE", 300, 300)...), hours("NO", 30, 30)...),
			at:     t0,
			want:   []int64{10, 0, 100, 50},
		},
		{
			name: "the next hours count, not only the current one",
			// FR: mean over 6 h = (200 + 5 x 20) / 6 = 50; NO: 100 throughout.
			points: append(hours("FR", 200, 20, 20, 20, 20, 20, 999), hours("NO", 100, 100, 100, 100, 100, 100)...),
			at:     t0,
			want:   []int64{0, 0, 50, 100},
		},
		{
			name:   "the window moves with the decision time",
			points: append(hours("FR", 999, 50), hours("NO", 100, 100)...),
			at:     t0.Add(time.Hour),
			want:   []int64{0, 0, 50, 100},
		},
		{
			name: "no intensity known: every cluster scores the same",
			at:   t0,
			want: []int64{0, 0, 0, 0},
		},
	}
	p := &Carbon{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := placement.NewSnapshot(clusters, nil, nil)
			s.Carbon, s.CarbonAt = intensity.NewIntensities(tc.points), tc.at
			w := &placement.Workload{Key: "web/front"}
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

func TestScoreWithoutCarbon(t *testing.T) {
	s := placement.NewSnapshot([]placement.Cluster{{Name: "paris", GridZone: "FR"}}, nil, nil)
	v, st := (&Carbon{}).Score(t.Context(), &placement.Workload{}, s.Clusters[0], s)
	if diff := cmp.Diff(int64(unknown), v); diff != "" || !st.IsSuccess() {
		t.Errorf("Score() without Snapshot.Carbon mismatch (-want +got):\n%s (status %+v)", diff, st)
	}
}
