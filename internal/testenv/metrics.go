package testenv

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Counter returns the value of the counter name whose labels include
// labels, in the controller-runtime registry that the controllers register
// their metrics with (they run in the test's process); 0 when there is none.
func Counter(t testing.TB, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
					continue next
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
