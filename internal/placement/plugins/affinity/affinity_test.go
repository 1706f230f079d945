package affinity

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestScore(t *testing.T) {
	many := make([]string, 150)
	for i := range many {
		many[i] = string(rune('A' + i))
	}
	tests := []struct {
		name      string
		locations []string
		cluster   string
		want      int64
	}{
		{name: "first preferred", locations: []string{"nantes", "rennes"}, cluster: "nantes", want: 100},
		{name: "second preferred", locations: []string{"nantes", "rennes"}, cluster: "rennes", want: 99},
		{name: "not preferred", locations: []string{"nantes", "rennes"}, cluster: "lille", want: 0},
		{name: "no locations", cluster: "lille", want: 0},
		{name: "far down a long list still beats the rest", locations: many, cluster: many[140], want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &placement.ClusterInfo{Cluster: placement.Cluster{Name: tc.cluster}}
			got, st := (&Affinity{}).Score(t.Context(), &placement.Workload{Locations: tc.locations}, c, &placement.Snapshot{})
			if !st.IsSuccess() {
				t.Fatalf("Score() status = %+v", st)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Score() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
