package clusterselector

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "clusterselector"

// ClusterSelector rejects clusters whose labels do not match the workload's
// ClusterSelector; a nil selector matches every cluster.
type ClusterSelector struct{}

var _ placement.FilterPlugin = &ClusterSelector{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &ClusterSelector{}, nil }

// Name returns Name.
func (*ClusterSelector) Name() string { return Name }

// Filter rejects a cluster whose labels do not match, as
// UnschedulableAndUnresolvable.
func (*ClusterSelector) Filter(_ context.Context, w *placement.Workload, c *placement.ClusterInfo) *placement.Status {
	if w.ClusterSelector == nil || w.ClusterSelector.Matches(labels.Set(c.Labels)) {
		return nil
	}
	return &placement.Status{
		Code:   placement.UnschedulableAndUnresolvable,
		Plugin: Name,
		Reason: fmt.Sprintf("cluster labels do not match the cluster selector %q", w.ClusterSelector.String()),
	}
}
