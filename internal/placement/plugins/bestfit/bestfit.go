package bestfit

import (
	"context"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "bestfit"

// BestFit scores clusters by their room for the workload, least room first.
type BestFit struct{}

var (
	_ placement.ScorePlugin     = &BestFit{}
	_ placement.ScoreNormalizer = &BestFit{}
)

// New returns the plugin.
func New() (placement.Plugin, error) { return &BestFit{}, nil }

// Name returns Name.
func (*BestFit) Name() string { return Name }

// Score returns the cluster's room: how many replicas its total free
// resources would hold.
func (*BestFit) Score(_ context.Context, w *placement.Workload, c *placement.ClusterInfo, _ *placement.Snapshot) (int64, *placement.Status) {
	return placement.ReplicasOn(&c.TotalFree, &w.PodRequests), nil
}

// NormalizeScore maps the rooms linearly onto [MinScore, MaxScore], the
// least room to MaxScore and the most to MinScore; equal rooms all score
// MaxScore.
func (*BestFit) NormalizeScore(_ context.Context, _ *placement.Workload, _ []*placement.ClusterInfo, scores []int64) *placement.Status {
	if len(scores) == 0 {
		return nil
	}
	lo, hi := scores[0], scores[0]
	for _, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		if hi == lo {
			scores[i] = placement.MaxScore
			continue
		}
		scores[i] = placement.ScaleScore(hi-s, hi-lo)
	}
	return nil
}
