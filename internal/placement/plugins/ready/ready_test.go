package ready

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name  string
		ready bool
		want  *placement.Status
	}{
		{name: "ready", ready: true},
		{name: "not ready", ready: false, want: &placement.Status{Code: placement.Unschedulable, Plugin: Name, Reason: "cluster is not ready: its API server does not answer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &placement.ClusterInfo{Cluster: placement.Cluster{Name: "lille", Ready: tc.ready}}
			got := (&Ready{}).Filter(t.Context(), &placement.Workload{}, c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
