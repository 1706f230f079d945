package ready

import (
	"context"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "ready"

// Ready rejects clusters whose Ready flag is false.
type Ready struct{}

var _ placement.FilterPlugin = &Ready{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &Ready{}, nil }

// Name returns Name.
func (*Ready) Name() string { return Name }

// Filter rejects a cluster that is not ready, as Unschedulable: it may come
// back.
func (*Ready) Filter(_ context.Context, _ *placement.Workload, c *placement.ClusterInfo) *placement.Status {
	if c.Ready {
		return nil
	}
	return &placement.Status{Code: placement.Unschedulable, Plugin: Name, Reason: "cluster is not ready: its API server does not answer"}
}
