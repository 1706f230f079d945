// Package carbon chooses where and when a run emits least: grid-intensity
// sources, their forecasts, and the scheduler that shifts a run in time and
// between regions.
//
// The scheduler is a pure function of a Request and the intensities already
// in memory: it does no I/O and reads no clock (the Request carries the time),
// so the admission webhook can call it within its budget and the simulator
// can call it in virtual time.
//
// # Intensity sources
//
// A Source reads hourly intensities of grid zones (Electricity Maps zone
// keys, UTC hours) from one service or dataset: the clients in the
// electricitymaps, watttime and carbonaware packages, the data shipped in the
// repository (package offline), and Memory for tests and the simulator. A
// Chain puts sources in order of preference with caches and request budgets,
// and falls back along them; every Point names the source that answered and
// why the ones before it did not, so that a decision can say which data it
// used ("offline: electricitymaps ... answered 429").
//
// # The scheduler
//
// Shifter chooses a run's region and start: it integrates each candidate
// zone's hourly intensity over the whole run (partial hours weighted), turns
// it into grams with an EnergyModel (Cloud Carbon Footprint's coefficients),
// and takes the least before the deadline, within the regions' Capacity
// given the Ledger of runs already planned; near-ties go to the least loaded
// region and hour. Intensities is the in-memory snapshot it reads, built
// from a Source's points; each zone keeps a running integral, so an option
// costs two look-ups. ScheduleBatch plans runs decided together.
//
// Planner is the Scheduler the admission webhook holds: the snapshot
// (swapped atomically by a Refresher, a controller-runtime Runnable that
// reads a Source every few minutes), the capacities and the ledger.
package carbon
