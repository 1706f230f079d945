package carbonsim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// Goal is the fraction of the oracle's savings Meridian must reach, with no
// deadline missed and no region over its capacity (issue 12).
const Goal = 0.9

// PolicyResult is one policy's outcome on a scenario.
type PolicyResult struct {
	Policy string `json:"policy"`
	// Grams is the actual emissions of every job as placed (a job left
	// unplaced counts at its origin at once).
	Grams float64 `json:"grams"`
	// SavingsPercent is the emissions saved against carbon-agnostic, in
	// percent of carbon-agnostic's.
	SavingsPercent float64 `json:"savingsPercent"`
	// OracleFraction is the policy's savings over the oracle's bound on
	// what any schedule could save (conservative); OracleScheduleFraction
	// over the savings of the oracle's own schedule.
	OracleFraction         float64 `json:"oracleFraction"`
	OracleScheduleFraction float64 `json:"oracleScheduleFraction"`
	// DeadlineMisses counts the jobs that end after their deadline or were
	// left unplaced.
	DeadlineMisses int `json:"deadlineMisses"`
	// Unplaced counts the jobs the policy found no room for.
	Unplaced int `json:"unplaced"`
	// LargestShare is the largest share of the work (CPU hours) run in one
	// region, and LargestRegion that region.
	LargestShare  float64 `json:"largestShare"`
	LargestRegion string  `json:"largestRegion"`
	// CapacityViolations counts the region-hours whose load exceeds the
	// declared capacity, counting every job in every hour its run touches
	// (the product's Ledger's rule).
	CapacityViolations int `json:"capacityViolations"`
	// PeakUtilisation is the highest load of a region-hour over its
	// capacity; FullHours counts the region-hours loaded to 90 % of their
	// capacity or more: how much the capacities constrained the policy.
	PeakUtilisation float64 `json:"peakUtilisation"`
	FullHours       int     `json:"fullHours"`
	// Moved is the share of jobs run outside their origin; MeanDelayHours
	// the mean delay of the start after the arrival.
	Moved          float64 `json:"moved"`
	MeanDelayHours float64 `json:"meanDelayHours"`
	// ZoneShare is the share of the work run in each grid zone.
	ZoneShare map[string]float64 `json:"zoneShare"`
	// MonthlyGrams is the emissions of the jobs arriving in each month.
	MonthlyGrams [12]float64 `json:"monthlyGrams"`
	// Seconds is how long the policy took to place the trace (wall clock).
	Seconds float64 `json:"seconds"`
}

// OracleSummary is what the oracle found.
type OracleSummary struct {
	// BoundGrams is the lower bound on the emissions of any feasible
	// schedule; ScheduleGrams the emissions of the best schedule found.
	BoundGrams    float64 `json:"boundGrams"`
	ScheduleGrams float64 `json:"scheduleGrams"`
	// Gap is (ScheduleGrams - BoundGrams) / BoundGrams.
	Gap        float64 `json:"gap"`
	Method     string  `json:"method"`
	Iterations int     `json:"iterations"`
}

// Result is a scenario's evaluation.
type Result struct {
	Scenario *Scenario `json:"scenario"`
	Jobs     int       `json:"jobs"`
	// Policies are in the order of the *Policy constants.
	Policies []PolicyResult `json:"policies"`
	Oracle   OracleSummary  `json:"oracle"`
	// RegretGrams is Meridian's emissions on forecasts minus on the actual
	// intensities; RegretPercent the same in percent of carbon-agnostic's
	// emissions.
	RegretGrams   float64 `json:"regretGrams"`
	RegretPercent float64 `json:"regretPercent"`
	// GoalMet says whether Meridian reached Goal with no miss and no
	// violation.
	GoalMet bool `json:"goalMet"`
}

// Policy returns the named policy's result, nil when absent.
func (r *Result) Policy(name string) *PolicyResult {
	for i := range r.Policies {
		if r.Policies[i].Policy == name {
			return &r.Policies[i]
		}
	}
	return nil
}

// A Progress is reported while a scenario is evaluated.
type Progress struct {
	// Step names what runs: a policy, or "oracle".
	Step string
	// Done of Total jobs (iterations for the oracle).
	Done, Total int
}

// Run evaluates every policy on the scenario.
func Run(ctx context.Context, s *Scenario, oracle Oracle, progress func(Progress)) (*Result, error) {
	tell := func(step string, total int) func(int) {
		return func(done int) {
			if progress != nil {
				progress(Progress{Step: step, Done: done, Total: total})
			}
		}
	}
	n := len(s.Jobs)
	placements := map[string][]Placement{}
	timing := map[string]time.Duration{}
	for _, p := range []Policy{Agnostic{}, RoundRobin{}} {
		began := time.Now()
		pl, err := p.Place(ctx, s, tell(p.Name(), n))
		if err != nil {
			return nil, err
		}
		placements[p.Name()], timing[p.Name()] = pl, time.Since(began)
	}
	products := []*Product{
		{PolicyName: TemporalPolicy, Variant: TemporalOnly},
		{PolicyName: SpatialPolicy, Variant: SpatialOnly},
		{PolicyName: MeridianPolicy},
	}
	for _, group := range [][]*Product{products, {{PolicyName: MeridianPerfectPolicy, Perfect: true}}} {
		began := time.Now()
		var names []string
		for _, p := range group {
			names = append(names, p.PolicyName)
		}
		pl, err := PlaceTogether(ctx, s, tell(strings.Join(names, ", "), n), group...)
		if err != nil {
			return nil, err
		}
		for k, p := range group {
			placements[p.PolicyName], timing[p.PolicyName] = pl[k], time.Since(began)/time.Duration(len(group))
		}
	}
	began := time.Now()
	or, err := oracle.Solve(ctx, s, func(done, total int) { tell(OraclePolicy, total)(done) })
	if err != nil {
		return nil, err
	}
	placements[OraclePolicy], timing[OraclePolicy] = or.Placements, time.Since(began)

	r := &Result{Scenario: s, Jobs: n, Oracle: OracleSummary{BoundGrams: or.Bound, ScheduleGrams: or.Grams, Gap: or.Gap(), Method: or.Method, Iterations: or.Iterations}}
	for _, name := range []string{AgnosticPolicy, RoundRobinPolicy, TemporalPolicy, SpatialPolicy, MeridianPolicy, MeridianPerfectPolicy, OraclePolicy} {
		pr, err := s.measure(name, placements[name])
		if err != nil {
			return nil, err
		}
		pr.Seconds = timing[name].Seconds()
		r.Policies = append(r.Policies, pr)
	}
	base := r.Policies[0].Grams
	for i := range r.Policies {
		p := &r.Policies[i]
		p.SavingsPercent = 100 * (base - p.Grams) / base
		p.OracleFraction = fraction(base-p.Grams, base-or.Bound)
		p.OracleScheduleFraction = fraction(base-p.Grams, base-or.Grams)
	}
	m, perfect := r.Policy(MeridianPolicy), r.Policy(MeridianPerfectPolicy)
	r.RegretGrams = m.Grams - perfect.Grams
	r.RegretPercent = 100 * r.RegretGrams / base
	r.GoalMet = m.OracleFraction >= Goal && m.DeadlineMisses == 0 && m.CapacityViolations == 0
	return r, nil
}

func fraction(saved, possible float64) float64 {
	if possible <= 0 {
		return 1
	}
	return saved / possible
}

// measure checks and measures one policy's placements.
func (s *Scenario) measure(name string, placements []Placement) (PolicyResult, error) {
	if len(placements) != len(s.Jobs) {
		return PolicyResult{}, fmt.Errorf("policy %s placed %d jobs of %d", name, len(placements), len(s.Jobs))
	}
	r := PolicyResult{Policy: name, ZoneShare: map[string]float64{}}
	ledger := carbon.NewLedger()
	work := map[string]float64{}
	var total, delay float64
	var moved int
	for i, p := range placements {
		j := &s.Jobs[i]
		if !j.hasCandidate(p.Candidate) {
			return PolicyResult{}, fmt.Errorf("policy %s ran job %s in %s, not one of its candidates", name, j.Name, carbon.RegionKey(p.Candidate))
		}
		if p.Start.Before(j.Arrival) {
			return PolicyResult{}, fmt.Errorf("policy %s started job %s at %s, before its arrival %s", name, j.Name, p.Start.Format(time.RFC3339), j.Arrival.Format(time.RFC3339))
		}
		end := p.Start.Add(j.Duration)
		if p.Unplaced || end.After(j.Deadline) {
			r.DeadlineMisses++
		}
		if p.Unplaced {
			r.Unplaced++
		}
		g := s.Grams(j, p.Candidate, p.Start)
		r.Grams += g
		r.MonthlyGrams[j.Arrival.Month()-1] += g
		cpuh := float64(j.CPUMilli) / 1000 * j.Duration.Hours()
		key := carbon.RegionKey(p.Candidate)
		work[key] += cpuh
		r.ZoneShare[p.Candidate.Zone] += cpuh
		total += cpuh
		if key != j.Origin {
			moved++
		}
		delay += p.Start.Sub(j.Arrival).Hours()
		if !p.Unplaced {
			// A job the policy found no room for is refused, not run: it
			// counts as a miss, and its emissions at the origin stand for
			// whatever runs it instead.
			ledger.Reserve(carbon.Reservation{Name: j.Name, Region: key, Start: p.Start, End: end, MilliCPU: j.CPUMilli})
		}
	}
	for key, w := range work {
		if share := w / total; share > r.LargestShare || (share == r.LargestShare && key < r.LargestRegion) {
			r.LargestShare, r.LargestRegion = share, key
		}
	}
	for z := range r.ZoneShare {
		r.ZoneShare[z] /= total
	}
	for _, region := range s.Regions {
		for h := carbon.Hour(s.From); h.Before(s.To.Add(maxSlack + maxDuration + time.Hour)); h = h.Add(time.Hour) {
			c, ok := s.Capacity.At(region.Key, h)
			if !ok || c == 0 {
				continue
			}
			l := ledger.Load(region.Key, h)
			if l > c {
				r.CapacityViolations++
			}
			u := float64(l) / float64(c)
			r.PeakUtilisation = max(r.PeakUtilisation, u)
			if u >= 0.9 {
				r.FullHours++
			}
		}
	}
	r.Moved = float64(moved) / float64(len(s.Jobs))
	r.MeanDelayHours = delay / float64(len(s.Jobs))
	return r, nil
}

func (j *Job) hasCandidate(c carbon.Candidate) bool {
	for _, x := range j.Candidates {
		if x.Provider == c.Provider && x.Region == c.Region {
			return true
		}
	}
	return false
}
