package locations

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "locations"

// Locations rejects clusters outside the workload's Locations when neither
// Substitution nor Bursting is enabled; a workload without locations may go
// anywhere.
type Locations struct{}

var _ placement.FilterPlugin = &Locations{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &Locations{}, nil }

// Name returns Name.
func (*Locations) Name() string { return Name }

// Filter rejects a cluster that is not a preferred location, as
// UnschedulableAndUnresolvable.
func (*Locations) Filter(_ context.Context, w *placement.Workload, c *placement.ClusterInfo) *placement.Status {
	if len(w.Locations) == 0 || w.Substitution || w.Bursting || slices.Contains(w.Locations, c.Name) {
		return nil
	}
	return &placement.Status{
		Code:   placement.UnschedulableAndUnresolvable,
		Plugin: Name,
		Reason: fmt.Sprintf("cluster is not one of the preferred locations (%s), and neither substitution nor bursting is enabled", strings.Join(w.Locations, ", ")),
	}
}
