package worstfit

import (
	"context"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "worstfit"

// WorstFit scores clusters by their room for the workload, most room first.
type WorstFit struct{}

var (
	_ placement.ScorePlugin     = &WorstFit{}
	_ placement.ScoreNormalizer = &WorstFit{}
)

// New returns the plugin.
func New() (placement.Plugin, error) { return &WorstFit{}, nil }

// Name returns Name.
func (*WorstFit) Name() string { return Name }

// Score returns the cluster's room: how many replicas its total free
// resources would hold.
func (*WorstFit) Score(_ context.Context, w *placement.Workload, c *placement.ClusterInfo, _ *placement.Snapshot) (int64, *placement.Status) {
	return placement.ReplicasOn(&c.TotalFree, &w.PodRequests), nil
}

// NormalizeScore scales the rooms linearly so that the largest scores
// MaxScore and no room scores 0.
func (*WorstFit) NormalizeScore(_ context.Context, _ *placement.Workload, _ []*placement.ClusterInfo, scores []int64) *placement.Status {
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
