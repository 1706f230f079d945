package affinity

import (
	"context"
	"slices"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "affinity"

// Affinity scores the i-th preferred location (from 0) MaxScore - i, but at
// least 1, and every other cluster 0. The steps of one point are what lets
// a profile weigh it by MaxScore+1 above a tie-breaking plugin and still
// keep the user's order for up to MaxScore locations.
type Affinity struct{}

var _ placement.ScorePlugin = &Affinity{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &Affinity{}, nil }

// Name returns Name.
func (*Affinity) Name() string { return Name }

// Score returns the cluster's rank among the preferred locations.
func (*Affinity) Score(_ context.Context, w *placement.Workload, c *placement.ClusterInfo, _ *placement.Snapshot) (int64, *placement.Status) {
	i := slices.Index(w.Locations, c.Name)
	if i < 0 {
		return placement.MinScore, nil
	}
	return max(placement.MaxScore-int64(i), 1), nil
}
