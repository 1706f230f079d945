package e2e_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// checkMeasuredLatencies fails t unless every member measured every other,
// each link at least its declared round trip less 10 % and less than twice
// it plus a millisecond: what a missing delay, a wrong route or a swapped
// link breaks. How close the measurements come to the profile depends on
// the machine's load (the loopback hops of a probe), so it is logged and
// reported by meridian latencies (docs/latencies.md), not asserted.
func (w *world) checkMeasuredLatencies(t *testing.T, p *testbed.Profile) {
	t.Helper()
	var list multiclusterv1alpha1.ClusterList
	if err := w.mgmt.List(t.Context(), &list); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for _, c := range list.Items {
		for _, l := range c.Status.Latencies {
			declared, ok := p.Latency(c.Name, string(l.Cluster))
			if !ok {
				t.Errorf("%s measured %s, which the profile does not declare", c.Name, l.Cluster)
				continue
			}
			got := l.RTT.Duration
			fmt.Fprintf(&table, "%s→%s %v (Table II %v, %+.1f%%)\n", c.Name, l.Cluster, got.Round(10*time.Microsecond), declared, 100*(float64(got)-float64(declared))/float64(declared))
			if got < declared-declared/10 || got > 2*declared+time.Millisecond {
				t.Errorf("%s→%s measured %v, declared %v: the network did not delay it by the profile", c.Name, l.Cluster, got, declared)
			}
		}
	}
	t.Logf("measured latencies:\n%s", table.String())
}

// checkExplainedByMeasurements fails t unless the placements in namespace
// explain themselves with measured round-trip times.
func (w *world) checkExplainedByMeasurements(t *testing.T, namespace string) {
	t.Helper()
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	if err := w.mgmt.List(t.Context(), &list, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	for _, d := range list.Items {
		for _, c := range d.Status.Clusters {
			if strings.Contains(c.Message, "(measured at ") {
				t.Logf("%s: %s: %s", d.Name, c.Name, c.Message)
				return
			}
		}
	}
	t.Errorf("no placement in %s names a measured round-trip time", namespace)
}
