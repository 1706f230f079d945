package carbonsim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/forecast"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
)

// DefaultRefit is how long the forecaster keeps a fitted model in the
// simulation: a week, where the product's forecast.Source refits daily
// (forecast.DefaultRefit). Fitting a zone's regression on a year of hours
// takes about 0.1 s, so daily refits of a year's replay would cost minutes;
// a model a few days older forecasts no better, so the choice can only
// understate Meridian.
const DefaultRefit = 7 * 24 * time.Hour

// Variant says how a product-backed policy changes a job's request before
// the product's scheduler plans it.
type Variant string

// The variants.
const (
	// Full asks the scheduler with the job as it is.
	Full Variant = "full"
	// TemporalOnly keeps the origin as the only candidate.
	TemporalOnly Variant = "temporal-only"
	// SpatialOnly leaves the deadline out, which the scheduler reads as
	// "do not shift in time".
	SpatialOnly Variant = "spatial-only"
)

// Product is a policy that is Meridian's own decision: for each job, in
// arrival order, a carbon.Refresher reads the intensities at the last
// refresh before the arrival (every carbon.DefaultRefreshInterval of
// virtual time, carbon.DefaultRefreshHorizon ahead, as the controller
// does) into a carbon.Planner that holds the scenario's capacities, and the
// Planner schedules the job as the admission webhook does.
type Product struct {
	// PolicyName is the policy's name.
	PolicyName string
	// Variant changes the request; Full when empty.
	Variant Variant
	// Perfect reads the actual intensities (the offline data's replay, a
	// perfect forecast) instead of the product's forecaster.
	Perfect bool
	// Refit is the forecaster's refit period; DefaultRefit when zero.
	Refit time.Duration
}

var _ Policy = &Product{}

// Name implements Policy.
func (p *Product) Name() string { return p.PolicyName }

// Place implements Policy.
func (p *Product) Place(ctx context.Context, s *Scenario, progress func(int)) ([]Placement, error) {
	out, err := PlaceTogether(ctx, s, progress, p)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// PlaceTogether places the jobs with several product-backed policies in one
// pass over the trace, so that they share the snapshots (and the fitted
// forecasters) of each refresh; each policy has its own Planner and ledger.
// It returns one slice of placements per policy, in order.
func PlaceTogether(ctx context.Context, s *Scenario, progress func(int), policies ...*Product) ([][]Placement, error) {
	// The refreshes' logs would be one line per virtual quarter hour.
	ctx = log.IntoContext(ctx, logr.Discard())
	snaps := map[bool]*snapshots{}
	planners := make([]*carbon.Planner, len(policies))
	out := make([][]Placement, len(policies))
	for k, p := range policies {
		if snaps[p.Perfect] == nil {
			snaps[p.Perfect] = newSnapshots(s, p.Perfect, p.Refit)
		}
		planners[k] = carbon.NewPlanner(carbon.PlannerOptions{Capacity: s.Capacity, Energy: s.Energy})
		out[k] = make([]Placement, len(s.Jobs))
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		for k, p := range policies {
			in, err := snaps[p.Perfect].at(ctx, j.Arrival)
			if err != nil {
				return nil, err
			}
			planners[k].SetIntensities(in)
			if out[k][i], err = p.place(planners[k], j); err != nil {
				return nil, err
			}
		}
		if progress != nil && i%64 == 0 {
			progress(i)
		}
	}
	report(progress, len(s.Jobs))
	return out, nil
}

// place asks the planner for the job, changed as the variant says.
func (p *Product) place(planner *carbon.Planner, j *Job) (Placement, error) {
	req := j.Request()
	switch p.Variant {
	case TemporalOnly:
		req.Candidates = req.Candidates[:1]
	case SpatialOnly:
		req.Deadline = time.Time{}
	}
	plan, err := planner.Schedule(req)
	switch {
	case errors.Is(err, carbon.ErrNoCapacity):
		return Placement{Candidate: j.Candidates[0], Start: j.Arrival, Unplaced: true}, nil
	case err != nil:
		return Placement{}, fmt.Errorf("policy %s: %w", p.PolicyName, err)
	}
	return Placement{Candidate: plan.Candidate, Start: plan.Start}, nil
}

// snapshots are the intensities a Refresher builds on a virtual clock.
type snapshots struct {
	refresher *carbon.Refresher
	clock     *clocktesting.FakeClock
	target    *target
	last      time.Time
}

// target keeps a Refresher's latest snapshot.
type target struct{ in *carbon.Intensities }

func (t *target) Intensities() *carbon.Intensities      { return t.in }
func (t *target) SetIntensities(in *carbon.Intensities) { t.in = in }

func newSnapshots(s *Scenario, perfect bool, refit time.Duration) *snapshots {
	if refit == 0 {
		refit = DefaultRefit
	}
	clk := clocktesting.NewFakeClock(s.From)
	var src carbon.Source = offline.New(s.Data, clk)
	if !perfect {
		src = &forecast.Source{Base: past{Source: src, clock: clk}, Clock: clk, Refit: refit, Yearly: s.Data.Yearly}
	}
	t := &target{}
	return &snapshots{clock: clk, target: t,
		refresher: &carbon.Refresher{Source: src, Zones: s.Zones(), Target: t, Clock: clk}}
}

// past is the history the forecaster may read in the simulation: the
// recorded hours that ended by the virtual now (the current hour is not
// over, so its intensity is not known yet). The offline source also answers
// hours outside its record by replaying recorded ones a whole number of
// 52-week periods away, which for a year before the record would be hours
// of the simulated future; they are left out.
type past struct {
	carbon.Source
	clock clock.PassiveClock
}

// History implements carbon.Source.
func (p past) History(ctx context.Context, zone string, from, to time.Time) ([]carbon.Point, error) {
	if now := carbon.Hour(p.clock.Now()); to.After(now) {
		to = now
	}
	pts, err := p.Source.History(ctx, zone, from, to)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(pts, func(pt carbon.Point) bool { return pt.Kind == carbon.Replay }), nil
}

// at returns the snapshot of the last refresh at or before t.
func (s *snapshots) at(ctx context.Context, t time.Time) (*carbon.Intensities, error) {
	r := t.Truncate(carbon.DefaultRefreshInterval)
	if r.Equal(s.last) && s.target.in != nil {
		return s.target.in, nil
	}
	s.clock.SetTime(r)
	if err := s.refresher.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("failed to refresh the intensities at %s: %w", r.Format(time.RFC3339), err)
	}
	s.last = r
	return s.target.in, nil
}
