package carbon

import (
	"cmp"
	"slices"
	"time"
)

// BatchOrder is the order in which ScheduleBatch plans the runs of a batch;
// each run sees the reservations of those planned before it.
type BatchOrder string

// The batch orders.
const (
	// Arrival plans the runs in the order given: greedy, as if they had
	// come one after another.
	Arrival BatchOrder = "arrival"
	// LeastSlack plans first the runs with the least room to move (deadline
	// minus earliest start minus duration; a run without a deadline has
	// none), the larger first among equals, so that a flexible run does not
	// take the only hours a tight one could use.
	LeastSlack BatchOrder = "least-slack"
	// LargestFirst plans the largest runs (CPU times duration) first, so
	// that the greenest hours go to the runs that emit most in them.
	LargestFirst BatchOrder = "largest-first"
	// Repaired starts from LeastSlack and, a few times, moves the runs
	// left without a plan to the front and plans again ("squeaky wheel"),
	// keeping the best pass.
	Repaired BatchOrder = "repaired"
)

// repairPasses bounds the passes of Repaired after the first.
const repairPasses = 3

// BatchOrders are the orders ScheduleBatch tries.
var BatchOrders = []BatchOrder{Arrival, LeastSlack, LargestFirst, Repaired}

// A Batch is the outcome of planning runs together.
type Batch struct {
	// Plans and Errors are indexed like the requests: each run has a plan
	// or an error.
	Plans  []Plan
	Errors []error
	// Order is the order that produced the batch.
	Order BatchOrder
	// Failed counts the runs without a plan; Grams sums the planned runs'
	// expected emissions.
	Failed int
	Grams  float64
	// ledger holds the batch's reservations on top of the ledger it was
	// planned against.
	ledger *Ledger
}

// ScheduleBatch plans runs decided together. It plans them in each of
// BatchOrders against a copy of the ledger, keeps the batch with the fewest
// runs left without a plan, then the least emissions (then the first order),
// and records its reservations in the ledger. Whatever the order, every run
// sees the reservations of the runs planned before it, so the batch never
// puts more into a region and hour than its capacity.
func (s *Shifter) ScheduleBatch(reqs []Request, ledger *Ledger) Batch {
	var best Batch
	for i, order := range BatchOrders {
		b := s.ScheduleInOrder(reqs, ledger, order)
		if i == 0 || b.better(best) {
			best = b
		}
	}
	if ledger != nil {
		for i, p := range best.Plans {
			if best.Errors[i] == nil {
				ledger.Reserve(ReservationFor(reqs[i], p))
			}
		}
	}
	return best
}

// better reports whether b is a better batch than o: fewer runs without a
// plan, then less emissions.
func (b Batch) better(o Batch) bool {
	return b.Failed < o.Failed || (b.Failed == o.Failed && b.Grams < o.Grams*(1-1e-9))
}

// ScheduleInOrder plans the runs in the order against a copy of the ledger,
// which it leaves unchanged.
func (s *Shifter) ScheduleInOrder(reqs []Request, ledger *Ledger, order BatchOrder) Batch {
	if order != Repaired {
		return s.scheduleSequence(reqs, ledger, order, batchOrder(reqs, order))
	}
	seq := batchOrder(reqs, LeastSlack)
	b := s.scheduleSequence(reqs, ledger, order, seq)
	best := b
	for pass := 0; pass < repairPasses && b.Failed > 0; pass++ {
		var failed, planned []int
		for _, i := range seq {
			if b.Errors[i] != nil {
				failed = append(failed, i)
			} else {
				planned = append(planned, i)
			}
		}
		seq = append(failed, planned...)
		if b = s.scheduleSequence(reqs, ledger, order, seq); b.better(best) {
			best = b
		}
	}
	return best
}

// scheduleSequence plans the runs in the sequence of their indexes.
func (s *Shifter) scheduleSequence(reqs []Request, ledger *Ledger, order BatchOrder, seq []int) Batch {
	b := Batch{Plans: make([]Plan, len(reqs)), Errors: make([]error, len(reqs)), Order: order, ledger: ledger.Clone()}
	for _, i := range seq {
		p, err := s.Plan(reqs[i], b.ledger)
		if err != nil {
			b.Errors[i] = err
			b.Failed++
			continue
		}
		b.Plans[i] = p
		b.Grams += p.ExpectedGrams
		b.ledger.Reserve(ReservationFor(reqs[i], p))
	}
	return b
}

// batchOrder returns the indexes of reqs in the order's sequence; ties keep
// the arrival order.
func batchOrder(reqs []Request, order BatchOrder) []int {
	idx := make([]int, len(reqs))
	for i := range idx {
		idx[i] = i
	}
	size := func(r Request) float64 { return float64(r.CPUMilli) * r.Duration.Hours() }
	slack := func(r Request) time.Duration {
		if r.Deadline.IsZero() {
			return 0
		}
		return r.Deadline.Sub(r.Earliest()) - r.Duration
	}
	switch order {
	case LeastSlack:
		slices.SortStableFunc(idx, func(a, b int) int {
			if c := cmp.Compare(slack(reqs[a]), slack(reqs[b])); c != 0 {
				return c
			}
			return cmp.Compare(size(reqs[b]), size(reqs[a]))
		})
	case LargestFirst:
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(size(reqs[b]), size(reqs[a])) })
	}
	return idx
}
