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
package carbon
