package trafficaware

import (
	"context"
	"math"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "trafficaware"

// resolution is how many raw score units one unit of traffic is worth, so
// that traffic below 1 (requests per second, say) still ranks.
const resolution = 1000

// TrafficAware scores clusters by the traffic they receive for the
// workload.
type TrafficAware struct{}

var (
	_ placement.ScorePlugin     = &TrafficAware{}
	_ placement.ScoreNormalizer = &TrafficAware{}
)

// New returns the plugin.
func New() (placement.Plugin, error) { return &TrafficAware{}, nil }

// Name returns Name.
func (*TrafficAware) Name() string { return Name }

// Score returns the cluster's traffic for the workload in thousandths;
// missing, negative and not-a-number traffic count as none.
func (*TrafficAware) Score(_ context.Context, w *placement.Workload, c *placement.ClusterInfo, s *placement.Snapshot) (int64, *placement.Status) {
	t := s.Traffic[w.Key][c.Name] * resolution
	if !(t > 0) {
		return 0, nil
	}
	return int64(min(t, math.MaxInt64/2)), nil
}

// NormalizeScore scales linearly so that the busiest cluster scores
// MaxScore and a cluster without traffic 0.
func (*TrafficAware) NormalizeScore(_ context.Context, _ *placement.Workload, _ []*placement.ClusterInfo, scores []int64) *placement.Status {
	var top int64
	for _, s := range scores {
		top = max(top, s)
	}
	for i, s := range scores {
		if top == 0 {
			scores[i] = placement.MinScore
			continue
		}
		scores[i] = placement.ScaleScore(s, top)
	}
	return nil
}
