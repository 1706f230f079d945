package nearestfirst

import (
	"context"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "nearestfirst"

// unknown is the raw score of a cluster without a latency to the origin.
const unknown = -1

// NearestFirst scores clusters by their latency to the workload's origin,
// nearest first.
type NearestFirst struct{}

var (
	_ placement.ScorePlugin     = &NearestFirst{}
	_ placement.ScoreNormalizer = &NearestFirst{}
)

// New returns the plugin.
func New() (placement.Plugin, error) { return &NearestFirst{}, nil }

// Name returns Name.
func (*NearestFirst) Name() string { return Name }

// Score returns the cluster's round-trip time to the origin in
// microseconds, or -1 when there is no origin or no known latency.
func (*NearestFirst) Score(_ context.Context, w *placement.Workload, c *placement.ClusterInfo, s *placement.Snapshot) (int64, *placement.Status) {
	origin, ok := Origin(w, s)
	if !ok {
		return unknown, nil
	}
	d, ok := s.Latency.Between(origin, c.Name)
	if !ok || d < 0 {
		return unknown, nil
	}
	return d.Microseconds(), nil
}

// NormalizeScore maps latencies linearly onto [MinScore, MaxScore]: zero
// latency (the origin) scores MaxScore, the farthest cluster MinScore, and
// a cluster with unknown latency MinScore too.
func (*NearestFirst) NormalizeScore(_ context.Context, _ *placement.Workload, _ []*placement.ClusterInfo, scores []int64) *placement.Status {
	var far int64
	for _, s := range scores {
		far = max(far, s)
	}
	for i, s := range scores {
		switch {
		case s == unknown:
			scores[i] = placement.MinScore
		case far == 0:
			scores[i] = placement.MaxScore
		default:
			scores[i] = placement.ScaleScore(far-s, far)
		}
	}
	return nil
}

// Origin returns the cluster that nearest-first measures from: the first
// preferred location, else the cluster with the most traffic for the
// workload, else the cluster holding most of its current replicas (ties to
// the first name); false when there is none.
func Origin(w *placement.Workload, s *placement.Snapshot) (string, bool) {
	if len(w.Locations) > 0 {
		return w.Locations[0], true
	}
	if c, ok := s.PeakTraffic(w.Key); ok {
		return c, true
	}
	best, most := "", int32(0)
	for c, n := range w.Current {
		if n > most || (n == most && n > 0 && c < best) {
			best, most = c, n
		}
	}
	return best, most > 0
}
