package multiclusterjob

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// A pass must not decide while a member that may hold the job's Job is
// not connected: after a restart that made the controller run a job twice.
func TestUnobserved(t *testing.T) {
	withShare := func(shares map[string]int32) *multiclusterv1alpha1.MultiClusterJob {
		mcj := &multiclusterv1alpha1.MultiClusterJob{}
		for name, n := range shares {
			mcj.Status.Clusters = append(mcj.Status.Clusters, multiclusterv1alpha1.ClusterDecision{Name: multiclusterv1alpha1.ClusterName(name), Replicas: n})
		}
		return mcj
	}
	cases := []struct {
		name       string
		mcj        *multiclusterv1alpha1.MultiClusterJob
		clusters   map[string]bool
		connecting []string
		connected  []string
		want       []string
	}{{
		name:     "every member connected",
		mcj:      withShare(map[string]int32{"a": 4}),
		clusters: map[string]bool{"a": true, "b": true}, connected: []string{"a", "b"},
	}, {
		name:     "a member whose Cluster says Ready, not connected yet, whatever the status says",
		mcj:      withShare(nil),
		clusters: map[string]bool{"a": true, "b": true}, connected: []string{"a"},
		want: []string{"b"},
	}, {
		name:     "a member the inventory records Ready, not connected yet",
		mcj:      withShare(nil),
		clusters: map[string]bool{"a": true}, connecting: []string{"b"}, connected: []string{"a"},
		want: []string{"b"},
	}, {
		name:     "a NotReady member that holds a share",
		mcj:      withShare(map[string]int32{"b": 4}),
		clusters: map[string]bool{"a": true, "b": false}, connected: []string{"a"},
		want: []string{"b"},
	}, {
		name:     "a NotReady member that holds none does not hold the job up",
		mcj:      withShare(map[string]int32{"a": 4, "b": 0}),
		clusters: map[string]bool{"a": true, "b": false}, connected: []string{"a"},
	}, {
		name:     "a share in a member whose Cluster is gone",
		mcj:      withShare(map[string]int32{"gone": 4}),
		clusters: map[string]bool{"a": true}, connected: []string{"a"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, unobserved(tc.mcj, tc.clusters, tc.connecting, tc.connected)); diff != "" {
				t.Errorf("unobserved (-want +got):\n%s", diff)
			}
		})
	}
}
