package inventory

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

// TestMeasuredLinks shows a link is called measured only when the value
// the matrix holds for it is a measurement: a's own, or b's copied into a
// row where a declared nothing.
func TestMeasuredLinks(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clusters := map[string]clusterEntry{
		// a measured b; b declared a (its own row keeps its declaration).
		"a": {latencies: map[string]time.Duration{"b": 3 * time.Millisecond}, measured: map[string]time.Time{"b": at}},
		"b": {latencies: map[string]time.Duration{"a": 2 * time.Millisecond}, measured: map[string]time.Time{}},
		// c measured a; a has no value for c of its own.
		"c": {latencies: map[string]time.Duration{"a": 5 * time.Millisecond}, measured: map[string]time.Time{"a": at.Add(time.Second)}},
	}
	latency := placement.Latency{}
	for name, e := range clusters {
		for other, d := range e.latencies {
			setLatency(latency, name, other, d)
		}
	}
	want := placement.MeasuredLatency{
		"a": {"b": at, "c": at.Add(time.Second)},
		"c": {"a": at.Add(time.Second)},
	}
	if diff := cmp.Diff(want, measuredLinks(clusters, latency)); diff != "" {
		t.Errorf("measuredLinks (-want +got):\n%s", diff)
	}
}
