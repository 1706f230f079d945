package carbon

import (
	"context"
	"math"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "carbon"

// Window is how far ahead the plugin looks: a cluster's raw score is its
// zone's mean intensity over the Window's hours from the one that holds
// Snapshot.CarbonAt, the known ones only. Six hours weigh the current hour
// with the ones a new replica will most likely run through.
const Window = 6 * time.Hour

// resolution is how many raw score units one g/kWh is worth.
const resolution = 1000

// unknown is the raw score of a cluster whose intensity is not known: it
// ranks below every cluster with a known one.
const unknown = -1

// Carbon scores clusters by the carbon intensity of their grid zone.
type Carbon struct{}

var (
	_ placement.ScorePlugin     = &Carbon{}
	_ placement.ScoreNormalizer = &Carbon{}
)

// New returns the plugin.
func New() (placement.Plugin, error) { return &Carbon{}, nil }

// Name returns Name.
func (*Carbon) Name() string { return Name }

// MeanIntensity returns the mean intensity of the zone over the Window's
// hours from the one that holds at, and false when none is known.
func MeanIntensity(ci placement.CarbonIntensity, zone string, at time.Time) (float64, bool) {
	if ci == nil || zone == "" {
		return 0, false
	}
	var sum float64
	var n int
	start := at.UTC().Truncate(time.Hour)
	for t := start; t.Before(start.Add(Window)); t = t.Add(time.Hour) {
		if g, ok := ci.GramsPerKWh(zone, t); ok && g >= 0 && !math.IsNaN(g) {
			sum += g
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// Score returns the cluster's mean intensity over the window in mg/kWh, or
// -1 when it is not known (no grid zone, or no data for it).
func (*Carbon) Score(_ context.Context, _ *placement.Workload, c *placement.ClusterInfo, s *placement.Snapshot) (int64, *placement.Status) {
	g, ok := MeanIntensity(s.Carbon, c.GridZone, s.CarbonAt)
	if !ok {
		return unknown, nil
	}
	return int64(min(g*resolution, math.MaxInt64/2)), nil
}

// NormalizeScore gives the cleanest cluster MaxScore and each other one
// MaxScore x cleanest / its intensity, so that a grid twice as dirty scores
// half; a cluster of unknown intensity scores MinScore, and when none is
// known every cluster does.
func (*Carbon) NormalizeScore(_ context.Context, _ *placement.Workload, _ []*placement.ClusterInfo, scores []int64) *placement.Status {
	cleanest := int64(-1)
	for _, s := range scores {
		if s != unknown && (cleanest < 0 || s < cleanest) {
			cleanest = s
		}
	}
	for i, s := range scores {
		switch {
		case s == unknown || cleanest < 0:
			scores[i] = placement.MinScore
		case s == 0:
			scores[i] = placement.MaxScore
		default:
			scores[i] = int64(math.Round(float64(placement.MaxScore) * float64(cleanest) / float64(s)))
		}
	}
	return nil
}
