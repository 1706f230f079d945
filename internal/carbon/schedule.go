package carbon

import (
	"errors"
	"time"

	"github.com/meridian-dev/meridian/internal/money"
)

// Errors a Scheduler returns; callers test them with errors.Is.
var (
	// ErrNoCandidates means the policies left no region to choose from.
	ErrNoCandidates = errors.New("no eligible region")
	// ErrDeadline means no eligible region can run the whole duration
	// between the earliest start and the deadline.
	ErrDeadline = errors.New("the run cannot finish before its deadline")
	// ErrNoCapacity means every eligible region and start that meets the
	// deadline is already full: the run would exceed a region's declared
	// capacity.
	ErrNoCapacity = errors.New("no eligible region has capacity for the run before its deadline")
)

// A Candidate is one place a run may go: a provider's region, the grid zone
// that powers it, and the instance size that fits the run there. The
// policies produce candidates; the scheduler only chooses among them.
type Candidate struct {
	// Provider is the cloud provider: "azure", "gcp" or "aws".
	Provider string `json:"provider"`
	// Region is the provider's region name, e.g. "westeurope".
	Region string `json:"region"`
	// Zone is the grid zone (an Electricity Maps zone key, e.g. "NL").
	Zone string `json:"zone"`
	// InstanceType is the provider's instance size that fits the run.
	InstanceType string `json:"instanceType"`
	// PricePerHour is the instance's on-demand price for an hour, in the
	// currency of the policies' price list (US dollars for the shipped
	// one); every candidate of a Request is in one currency.
	PricePerHour money.Money `json:"pricePerHour"`
	// LatencyMs is the round-trip time from the run's origin region.
	LatencyMs float64 `json:"latencyMs"`
}

// A Request is what a run needs and when it may run.
type Request struct {
	// Name identifies the run in decisions and logs (namespace/name).
	Name string
	// CPUMilli and MemoryBytes are the run's size.
	CPUMilli    int64
	MemoryBytes int64
	// Duration is how long the run lasts once started.
	Duration time.Duration
	// Now is the time of the decision; nothing starts before it.
	Now time.Time
	// NotBefore, when later than Now, is the earliest start.
	NotBefore time.Time
	// Deadline, when set, is when the run must have ended.
	Deadline time.Time
	// Candidates are the regions the policies left, in the policies'
	// order of preference (the first is the origin's best).
	Candidates []Candidate
}

// Earliest returns the earliest time the run may start.
func (r Request) Earliest() time.Time {
	if r.NotBefore.After(r.Now) {
		return r.NotBefore
	}
	return r.Now
}

// A Plan is the scheduler's choice for one run.
type Plan struct {
	// Candidate is where the run goes.
	Candidate Candidate
	// Start and End bound the run: End is Start plus the duration.
	Start, End time.Time
	// ExpectedGrams is the forecast emissions of the run as planned, in
	// grams of CO2-equivalent; BaselineGrams those of the counterfactual
	// (the first candidate, started at once). Both are zero when no
	// intensity was known.
	ExpectedGrams float64
	BaselineGrams float64
	// Source names where the intensities came from, e.g.
	// "electricitymaps", "offline" or "none".
	Source string
	// Fallback, when not empty, says that forecasts were missing or stale
	// and what the scheduler did instead.
	Fallback string
	// Reason says in a sentence why this candidate and start were chosen.
	Reason string
}

// A Scheduler plans runs. Implementations do no I/O and read no clock: they
// decide from the request and the data they already hold in memory.
type Scheduler interface {
	Schedule(req Request) (Plan, error)
}
