package locations

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestFilter(t *testing.T) {
	outside := &placement.Status{
		Code:   placement.UnschedulableAndUnresolvable,
		Plugin: Name,
		Reason: "cluster is not one of the preferred locations (rennes, nantes), and neither substitution nor bursting is enabled",
	}
	tests := []struct {
		name    string
		w       placement.Workload
		cluster string
		want    *placement.Status
	}{
		{name: "no locations", cluster: "lille"},
		{name: "preferred", w: placement.Workload{Locations: []string{"rennes", "nantes"}}, cluster: "nantes"},
		{name: "not preferred", w: placement.Workload{Locations: []string{"rennes", "nantes"}}, cluster: "lille", want: outside},
		{name: "not preferred, substitution", w: placement.Workload{Locations: []string{"rennes", "nantes"}, Substitution: true}, cluster: "lille"},
		{name: "not preferred, bursting", w: placement.Workload{Locations: []string{"rennes", "nantes"}, Bursting: true}, cluster: "lille"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &placement.ClusterInfo{Cluster: placement.Cluster{Name: tc.cluster}}
			got := (&Locations{}).Filter(t.Context(), &tc.w, c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
