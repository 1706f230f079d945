package plugins

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestDuplicate(t *testing.T) {
	copyOf := func(policy placement.Policy, mutate ...func(*placement.Workload)) *placement.Workload {
		w := &placement.Workload{Key: "config", Kind: placement.KindCopy, Replicas: 1, Policy: policy}
		for _, m := range mutate {
			m(w)
		}
		return w
	}
	withPod := func(w *placement.Workload) { w.PodRequests = placement.Resources{MilliCPU: 1000, Memory: gi, Pods: 1} }
	spread := func(n int32) func(*placement.Workload) {
		return func(w *placement.Workload) { w.NumberOfLocations = n }
	}
	tests := []struct {
		name     string
		sites    []site
		notReady string
		w        *placement.Workload
		want     []placement.Assignment
	}{
		{
			name: "without locations, every cluster, full ones too, the cloud last",
			// Rennes and Lille are full: a copy needs no room. Without pod
			// requests WorstFit ranks all alike: by name.
			sites: grid5000(0, 3, 0, 2, 1), w: copyOf(placement.PolicyWorstFit),
			want: []placement.Assignment{
				{Cluster: "grenoble", Replicas: 1, Role: placement.RoleSelected}, {Cluster: "lille", Replicas: 1, Role: placement.RoleSelected},
				{Cluster: "luxembourg", Replicas: 1, Role: placement.RoleSelected}, {Cluster: "nantes", Replicas: 1, Role: placement.RoleSelected},
				{Cluster: "rennes", Replicas: 1, Role: placement.RoleSelected}, {Cluster: "nancy", Replicas: 1, Role: placement.RoleBurst},
			},
		},
		{
			// A copy with pods (a DaemonSet's) is ranked by the room for
			// one of them.
			name:  "numberOfLocations: the first ones in the policy's order",
			sites: grid5000(0, 3, 0, 2, 1), w: copyOf(placement.PolicyWorstFit, spread(2), withPod),
			want: []placement.Assignment{{Cluster: "nantes", Replicas: 1, Role: placement.RoleSelected}, {Cluster: "grenoble", Replicas: 1, Role: placement.RoleSelected}},
		},
		{
			name:  "locations: exactly those, full or not",
			sites: grid5000(0, 3, 0, 2, 1), w: copyOf(placement.PolicyClusterAffinity, preferring("rennes", "lille")),
			want: []placement.Assignment{{Cluster: "rennes", Replicas: 1, Role: placement.RolePreferred}, {Cluster: "lille", Replicas: 1, Role: placement.RolePreferred}},
		},
		{
			name:  "a preferred cluster not ready is substituted by the nearest when substitution is on",
			sites: grid5000(4, 4, 4, 4, 4), notReady: "rennes", w: copyOf(placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: []placement.Assignment{{Cluster: "nantes", Replicas: 1, Role: placement.RoleSubstitute}},
		},
		{
			name:  "and left out when it is off",
			sites: grid5000(4, 4, 4, 4, 4), notReady: "rennes", w: copyOf(placement.PolicyClusterAffinity, preferring("rennes")),
			want: nil,
		},
	}
	f, err := NewFramework()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot(tc.sites, nil)
			for _, c := range s.Clusters {
				if c.Name == tc.notReady {
					c.Ready = false
				}
			}
			d, err := f.Duplicate(t.Context(), s, tc.w)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, d.Assignments); diff != "" {
				t.Errorf("Duplicate (-want +got):\n%s", diff)
			}
			if wantUnplaced := int32(0); len(tc.want) == 0 {
				wantUnplaced = 1
				if d.Unplaced != wantUnplaced {
					t.Errorf("Unplaced = %d, want %d", d.Unplaced, wantUnplaced)
				}
			}
		})
	}
}
