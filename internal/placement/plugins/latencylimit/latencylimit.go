package latencylimit

import (
	"context"
	"fmt"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "latencylimit"

// LatencyLimit rejects the clusters farther than Workload.MaxLatency from
// Workload.LatencyOrigin (the first of Locations when empty); a workload
// without a limit may go anywhere.
type LatencyLimit struct{}

var _ placement.FilterPlugin = &LatencyLimit{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &LatencyLimit{}, nil }

// Name returns Name.
func (*LatencyLimit) Name() string { return Name }

// Filter rejects a cluster whose round-trip time from the origin is over the
// limit or unknown, as UnschedulableAndUnresolvable: no change inside the
// cluster brings it nearer.
func (*LatencyLimit) Filter(_ context.Context, w *placement.Workload, c *placement.ClusterInfo) *placement.Status {
	if w.MaxLatency <= 0 {
		return nil
	}
	origin := w.LatencyOrigin
	if origin == "" && len(w.Locations) > 0 {
		origin = w.Locations[0]
	}
	if origin == "" {
		return &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name,
			Reason: fmt.Sprintf("the latency limit of %s has no origin cluster (set latencyLimit.origin or locations)", w.MaxLatency)}
	}
	rtt, ok := c.LatencyFrom(origin)
	switch {
	case !ok:
		return &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name,
			Reason: fmt.Sprintf("the round-trip time from %s is unknown, and the workload allows at most %s", origin, w.MaxLatency)}
	case rtt > w.MaxLatency:
		return &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name,
			Reason: fmt.Sprintf("the round-trip time from %s is %s, over the workload's limit of %s", origin, rtt, w.MaxLatency)}
	}
	return nil
}
