package plugins

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/placement"
)

// TestCarbonProfile places workloads with the Carbon policy: the cleanest
// grid among the clusters the latency limit and residency leave wins.
func TestCarbonProfile(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	grid := map[string]float64{"FR": 50, "DE": 300, "NO": 20, "US-CAL-CISO": 150}
	var pts []carbon.Point
	for zone, g := range grid {
		pts = append(pts, carbon.Point{Zone: zone, Time: now, GramsPerKWh: g, Source: "test"})
	}
	cluster := func(name, zone, jurisdiction string) placement.Cluster {
		nodes := []placement.Node{{Name: name + "-0", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 32 * gi, Pods: 110}}}
		return placement.Cluster{Name: name, GridZone: zone, Jurisdiction: jurisdiction, Ready: true, Nodes: nodes}
	}
	clusters := []placement.Cluster{cluster("paris", "FR", "FR"), cluster("frankfurt", "DE", "DE"), cluster("oslo", "NO", "NO"), cluster("california", "US-CAL-CISO", "US-CA")}
	latency := placement.Latency{"frankfurt": {"paris": ms(9), "oslo": ms(25), "california": ms(150)}}
	tests := []struct {
		name string
		w    placement.Workload
		want []placement.Assignment
	}{
		{
			name: "the cleanest grid",
			w:    placement.Workload{},
			want: []placement.Assignment{{Cluster: "oslo", Replicas: 4, Role: placement.RoleSelected}},
		},
		{
			name: "residency in the EU rules Norway out",
			w:    placement.Workload{Jurisdictions: []string{"EU"}},
			want: []placement.Assignment{{Cluster: "paris", Replicas: 4, Role: placement.RoleSelected}},
		},
		{
			name: "a latency limit from Frankfurt rules Oslo out",
			w:    placement.Workload{MaxLatency: 20 * time.Millisecond, LatencyOrigin: "frankfurt"},
			want: []placement.Assignment{{Cluster: "paris", Replicas: 4, Role: placement.RoleSelected}},
		},
		{
			name: "residency in the US",
			w:    placement.Workload{Jurisdictions: []string{"US"}},
			want: []placement.Assignment{{Cluster: "california", Replicas: 4, Role: placement.RoleSelected}},
		},
	}
	f, err := NewFramework()
	if err != nil {
		t.Fatalf("NewFramework() = %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := placement.NewSnapshot(clusters, latency, nil)
			s.Carbon, s.CarbonAt = carbon.NewIntensities(pts), now
			w := tc.w
			w.Key, w.Kind, w.Replicas, w.Policy = "web/front", placement.KindDeployment, 4, placement.PolicyCarbon
			w.PodRequests = placement.Resources{MilliCPU: 500, Memory: gi, Pods: 1}
			d, err := f.Place(t.Context(), s, &w)
			if err != nil {
				t.Fatalf("Place() = %v", err)
			}
			if diff := cmp.Diff(tc.want, d.Assignments); diff != "" {
				t.Errorf("Place() assignments mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
