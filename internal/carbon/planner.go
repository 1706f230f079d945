package carbon

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Planner is the Scheduler the admission webhook calls in-process. It holds
// the latest intensities (swapped atomically by a Refresher, never read from
// a source in the admission path), the regions' capacities, and the ledger of
// the runs it planned, so that runs admitted one after another never exceed a
// region's capacity. It is safe for concurrent use; decisions are serialised
// on the ledger, each taking well under a millisecond.
type Planner struct {
	intensities atomic.Pointer[Intensities]
	capacity    atomic.Pointer[Capacity]
	energy      EnergyModel
	tolerance   float64

	mu     sync.Mutex
	ledger *Ledger
	// unnamed counts the runs planned without a name.
	unnamed int
}

var _ Scheduler = &Planner{}

// PlannerOptions configure a Planner.
type PlannerOptions struct {
	// Capacity is the regions' declared capacity; nil is unlimited.
	Capacity *Capacity
	// Energy is the energy model; the zero value means DefaultEnergyModel.
	Energy EnergyModel
	// Tolerance is the relative width of a near-tie; zero means
	// DefaultTolerance.
	Tolerance float64
	// Intensities are the first forecasts; nil until a Refresher sets them
	// (the Planner then behaves as NoForecast).
	Intensities *Intensities
}

// NewPlanner returns a Planner with an empty ledger.
func NewPlanner(opts PlannerOptions) *Planner {
	p := &Planner{energy: opts.Energy, tolerance: opts.Tolerance, ledger: NewLedger()}
	p.intensities.Store(opts.Intensities)
	p.capacity.Store(opts.Capacity)
	return p
}

// SetIntensities replaces the forecasts; decisions under way finish on the
// previous ones.
func (p *Planner) SetIntensities(in *Intensities) { p.intensities.Store(in) }

// Intensities returns the current forecasts (nil when none was set).
func (p *Planner) Intensities() *Intensities { return p.intensities.Load() }

// SetCapacity replaces the regions' capacities.
func (p *Planner) SetCapacity(c *Capacity) { p.capacity.Store(c) }

func (p *Planner) shifter() *Shifter {
	return &Shifter{Intensities: p.intensities.Load(), Capacity: p.capacity.Load(), Energy: p.energy, Tolerance: p.tolerance}
}

// Schedule implements Scheduler: it plans the run and reserves its CPU
// under req.Name. Reservations of runs that ended before the hour of
// req.Now began are dropped first: a run that ended within the current hour
// still holds that hour, since capacity is counted per hour. A run planned
// again (the same name) gives up its previous reservation, which it keeps if
// the new plan fails. A run without a name holds its reservation under a
// generated one until it ends.
func (p *Planner) Schedule(req Request) (Plan, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ledger.Prune(Hour(req.Now))
	if req.Name == "" {
		p.unnamed++
		req.Name = fmt.Sprintf("unnamed-%d", p.unnamed)
	}
	old, had := p.ledger.byName[req.Name]
	p.ledger.Release(req.Name)
	plan, err := p.shifter().Plan(req, p.ledger)
	if err != nil {
		if had {
			p.ledger.Reserve(old)
		}
		return Plan{}, err
	}
	p.ledger.Reserve(ReservationFor(req, plan))
	return plan, nil
}

// Preview plans the run without reserving anything (a dry run).
func (p *Planner) Preview(req Request) (Plan, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ledger := p.ledger
	if _, ok := ledger.byName[req.Name]; ok {
		ledger = ledger.Clone()
		ledger.Release(req.Name)
	}
	return p.shifter().Plan(req, ledger)
}

// Previewer returns a Scheduler that plans with the Planner's data and
// ledger but reserves nothing: for dry-run admissions and for replaying a
// decision.
func (p *Planner) Previewer() Scheduler { return previewer{p} }

type previewer struct{ p *Planner }

func (v previewer) Schedule(req Request) (Plan, error) { return v.p.Preview(req) }

// ScheduleBatch plans runs together (see Shifter.ScheduleBatch) and
// reserves the planned ones.
func (p *Planner) ScheduleBatch(reqs []Request) Batch {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range reqs {
		p.ledger.Release(r.Name)
	}
	return p.shifter().ScheduleBatch(reqs, p.ledger)
}

// Reserve records a run planned elsewhere, for example a CloudVM admitted
// before a restart whose spec.schedule holds its plan, so that the ledger
// starts from what is already planned.
func (p *Planner) Reserve(r Reservation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ledger.Reserve(r)
}

// Release drops the named run's reservation (the run was deleted, or its
// admission refused) and reports whether it held one.
func (p *Planner) Release(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ledger.Release(name)
}

// Reservations returns the ledger's reservations, sorted by name.
func (p *Planner) Reservations() []Reservation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ledger.Reservations()
}
