package taints

import (
	"context"
	"fmt"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "taints"

// Taints rejects clusters with a NoSchedule or NoExecute taint that the
// workload's tolerations do not tolerate.
type Taints struct{}

var _ placement.FilterPlugin = &Taints{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &Taints{}, nil }

// Name returns Name.
func (*Taints) Name() string { return Name }

// Filter rejects the cluster, as UnschedulableAndUnresolvable, at its first
// untolerated taint.
func (*Taints) Filter(_ context.Context, w *placement.Workload, c *placement.ClusterInfo) *placement.Status {
	t, bad := placement.UntoleratedTaint(c.Taints, w.Tolerations)
	if !bad {
		return nil
	}
	return &placement.Status{
		Code:   placement.UnschedulableAndUnresolvable,
		Plugin: Name,
		Reason: fmt.Sprintf("cluster has taint %s that the workload does not tolerate", t.ToString()),
	}
}
