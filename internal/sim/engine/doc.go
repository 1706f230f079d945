// Package engine is the simulator's discrete-event core: a virtual clock and
// a queue of events ordered by time, then by the order they were scheduled.
//
// Nothing in the engine reads the wall clock, so a run depends only on what
// was scheduled: two runs of the same events give the same sequence, which
// is what makes a simulation reproducible from its seed.
package engine
