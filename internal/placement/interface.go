package placement

import "context"

// Code is the outcome of a plugin for one cluster.
type Code int

// The plugin outcomes.
const (
	// Success means the cluster passed.
	Success Code = iota
	// Unschedulable means the cluster cannot take the workload now, but
	// might after a change in the cluster (pods ending, nodes added).
	Unschedulable
	// UnschedulableAndUnresolvable means no change in the cluster helps
	// (a taint the workload does not tolerate, a label that does not match).
	UnschedulableAndUnresolvable
	// Error means the plugin failed; the cluster is not used.
	Error
)

// Status is a plugin's result for one cluster. Reason is shown to users as
// it is, in status and events.
type Status struct {
	Code   Code
	Plugin string
	Reason string
}

// IsSuccess reports whether s is nil or a success.
func (s *Status) IsSuccess() bool { return s == nil || s.Code == Success }

// Plugin is the parent of every extension point.
type Plugin interface {
	Name() string
}

// FilterPlugin rules clusters out. Filter must not modify the snapshot and
// must be safe to call concurrently for different clusters.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, w *Workload, c *ClusterInfo) *Status
}

// ScorePlugin ranks the clusters that passed the filters. Score returns a
// score in [MinScore, MaxScore] after NormalizeScore, higher is better.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, w *Workload, c *ClusterInfo, s *Snapshot) (int64, *Status)
}

// ScoreNormalizer rescales the raw scores of a ScorePlugin over all clusters
// into [MinScore, MaxScore]; scores is indexed like clusters.
type ScoreNormalizer interface {
	NormalizeScore(ctx context.Context, w *Workload, clusters []*ClusterInfo, scores []int64) *Status
}

// The range of normalized scores.
const (
	MinScore int64 = 0
	MaxScore int64 = 100
)
