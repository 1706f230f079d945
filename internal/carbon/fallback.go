package carbon

import (
	"fmt"
	"sort"
)

// NoForecast is the scheduler used when no intensity is known for any
// candidate: the run starts at its earliest time in the cheapest candidate
// (then the one nearest its origin, then the policies' order). It is the
// documented fallback of the admission webhook, never a far-future date.
type NoForecast struct{}

var _ Scheduler = NoForecast{}

// Schedule implements Scheduler.
func (NoForecast) Schedule(req Request) (Plan, error) {
	if len(req.Candidates) == 0 {
		return Plan{}, ErrNoCandidates
	}
	start := req.Earliest()
	end := start.Add(req.Duration)
	if !req.Deadline.IsZero() && end.After(req.Deadline) {
		return Plan{}, fmt.Errorf("%w: starting at %s it would end at %s, after the deadline %s",
			ErrDeadline, start.UTC().Format(timeLayout), end.UTC().Format(timeLayout), req.Deadline.UTC().Format(timeLayout))
	}
	order := make([]int, len(req.Candidates))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ca, cb := req.Candidates[order[a]], req.Candidates[order[b]]
		// One currency per request (the policy engine refuses two).
		if c, _ := ca.PricePerHour.Cmp(cb.PricePerHour); c != 0 {
			return c < 0
		}
		return ca.LatencyMs < cb.LatencyMs
	})
	c := req.Candidates[order[0]]
	return Plan{
		Candidate: c,
		Start:     start,
		End:       end,
		Source:    "none",
		Fallback:  "no carbon intensity is known for any eligible region: the run starts at its earliest time in the cheapest region",
		Reason:    fmt.Sprintf("%s/%s is the cheapest of %d eligible regions (%s/h)", c.Provider, c.Region, len(req.Candidates), c.PricePerHour),
	}, nil
}

// timeLayout is how times appear in errors and reasons.
const timeLayout = "2006-01-02T15:04:05Z"
