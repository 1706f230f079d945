package engine

import (
	"container/heap"
	"time"
)

// Func is the action of an event; it runs at the event's time and may
// schedule further events.
type Func func()

type event struct {
	at  time.Duration
	seq uint64
	fn  Func
}

type queue []event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Engine runs events in virtual time. The zero value is ready to use and
// starts at time zero.
type Engine struct {
	now    time.Duration
	seq    uint64
	events queue
	ran    uint64
}

// Now is the virtual time since the start of the run.
func (e *Engine) Now() time.Duration { return e.now }

// Ran is how many events have run so far.
func (e *Engine) Ran() uint64 { return e.ran }

// At schedules fn at virtual time at; a time in the past runs at Now, after
// the events already scheduled for Now.
func (e *Engine) At(at time.Duration, fn Func) {
	if at < e.now {
		at = e.now
	}
	e.seq++
	heap.Push(&e.events, event{at: at, seq: e.seq, fn: fn})
}

// After schedules fn d after Now.
func (e *Engine) After(d time.Duration, fn Func) { e.At(e.now+d, fn) }

// Every schedules fn at start and then every period until it returns false
// or the run ends.
func (e *Engine) Every(start, period time.Duration, fn func() bool) {
	var tick Func
	next := start
	tick = func() {
		if !fn() {
			return
		}
		next += period
		e.At(next, tick)
	}
	e.At(start, tick)
}

// RunUntil runs every event scheduled up to and including end, in order,
// then sets the clock to end. Events scheduled later stay queued.
func (e *Engine) RunUntil(end time.Duration) {
	for len(e.events) > 0 && e.events[0].at <= end {
		ev := heap.Pop(&e.events).(event)
		e.now = ev.at
		e.ran++
		ev.fn()
	}
	if end > e.now {
		e.now = end
	}
}

// Pending is how many events are queued.
func (e *Engine) Pending() int { return len(e.events) }
