package clusterselector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name     string
		selector string // "" means a nil selector
		labels   map[string]string
		want     *placement.Status
	}{
		{name: "nil selector matches all", labels: map[string]string{"region": "eu"}},
		{name: "matching", selector: "region=eu,tier in (edge)", labels: map[string]string{"region": "eu", "tier": "edge"}},
		{
			name: "not matching", selector: "region=eu", labels: map[string]string{"region": "us"},
			want: &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name, Reason: `cluster labels do not match the cluster selector "region=eu"`},
		},
		{
			name: "no labels", selector: "gdpr",
			want: &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name, Reason: `cluster labels do not match the cluster selector "gdpr"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &placement.Workload{}
			if tc.selector != "" {
				sel, err := labels.Parse(tc.selector)
				if err != nil {
					t.Fatalf("labels.Parse(%q) = %v", tc.selector, err)
				}
				w.ClusterSelector = sel
			}
			c := &placement.ClusterInfo{Cluster: placement.Cluster{Name: "lille", Labels: tc.labels}}
			got := (&ClusterSelector{}).Filter(t.Context(), w, c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
