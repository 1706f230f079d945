package engine

import "time"

// Func is the action of an event; it runs at the event's time and may
// schedule further events.
type Func func()

// Engine runs events in virtual time. The zero value is ready to use and
// starts at time zero.
type Engine struct {
	now    time.Duration
	events Queue[Func]
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
	e.events.Push(at, fn)
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
	for at, ok := e.events.Next(); ok && at <= end; at, ok = e.events.Next() {
		var fn Func
		e.now, fn = e.events.Pop()
		e.ran++
		fn()
	}
	if end > e.now {
		e.now = end
	}
}

// Pending is how many events are queued.
func (e *Engine) Pending() int { return e.events.Len() }
