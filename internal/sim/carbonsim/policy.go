package carbonsim

import (
	"context"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// Names of the policies, in the order the report shows them.
const (
	AgnosticPolicy        = "carbon-agnostic"
	RoundRobinPolicy      = "round-robin"
	TemporalPolicy        = "temporal-only"
	SpatialPolicy         = "spatial-only"
	MeridianPolicy        = "meridian"
	MeridianPerfectPolicy = "meridian-perfect"
	OraclePolicy          = "oracle"
)

// A Placement is where and when a policy runs one job.
type Placement struct {
	// Candidate is the region the job runs in.
	Candidate carbon.Candidate
	// Start is when it starts.
	Start time.Time
	// Unplaced is true when the policy found no region with room before
	// the deadline: the job then runs at its origin at once, and counts as
	// a deadline miss.
	Unplaced bool
}

// A Policy places every job of a scenario.
type Policy interface {
	// Name is one of the *Policy constants.
	Name() string
	// Place returns one placement per job, indexed like s.Jobs; progress,
	// when not nil, is told how many jobs are placed.
	Place(ctx context.Context, s *Scenario, progress func(done int)) ([]Placement, error)
}

// Agnostic runs every job at its origin at once, whatever the grid: the
// counterfactual of every plan.
type Agnostic struct{}

var _ Policy = Agnostic{}

// Name implements Policy.
func (Agnostic) Name() string { return AgnosticPolicy }

// Place implements Policy.
func (Agnostic) Place(_ context.Context, s *Scenario, progress func(int)) ([]Placement, error) {
	out := make([]Placement, len(s.Jobs))
	for i := range s.Jobs {
		out[i] = Placement{Candidate: s.Jobs[i].Candidates[0], Start: s.Jobs[i].Arrival}
	}
	report(progress, len(out))
	return out, nil
}

// RoundRobin starts every job at once in its candidates taken in turn (one
// turn across all jobs), skipping those without room: the GreenOps paper's
// baseline.
type RoundRobin struct{}

var _ Policy = RoundRobin{}

// Name implements Policy.
func (RoundRobin) Name() string { return RoundRobinPolicy }

// Place implements Policy.
func (RoundRobin) Place(_ context.Context, s *Scenario, progress func(int)) ([]Placement, error) {
	out := make([]Placement, len(s.Jobs))
	ledger := carbon.NewLedger()
	next := 0
	for i := range s.Jobs {
		j := &s.Jobs[i]
		out[i] = Placement{Candidate: j.Candidates[0], Start: j.Arrival, Unplaced: true}
		for k := range j.Candidates {
			c := j.Candidates[(next+k)%len(j.Candidates)]
			if fits(s.Capacity, ledger, carbon.RegionKey(c), j.Arrival, j.Arrival.Add(j.Duration), j.CPUMilli) {
				out[i] = Placement{Candidate: c, Start: j.Arrival}
				break
			}
		}
		next++
		ledger.Prune(j.Arrival)
		ledger.Reserve(carbon.ReservationFor(j.Request(), carbon.Plan{Candidate: out[i].Candidate, Start: j.Arrival, End: j.Arrival.Add(j.Duration)}))
		if progress != nil && i%256 == 0 {
			progress(i)
		}
	}
	report(progress, len(out))
	return out, nil
}

// fits reports whether a run of milliCPU in region over [start, end) stays
// within its capacity given the ledger.
func fits(c *carbon.Capacity, ledger *carbon.Ledger, region string, start, end time.Time, milliCPU int64) bool {
	for h := carbon.Hour(start); h.Before(end); h = h.Add(time.Hour) {
		if limit, ok := c.At(region, h); ok && ledger.Load(region, h)+milliCPU > limit {
			return false
		}
	}
	return true
}

func report(progress func(int), done int) {
	if progress != nil {
		progress(done)
	}
}
