// Package carbon chooses where and when a run emits least: grid-intensity
// sources, their forecasts, and the scheduler that shifts a run in time and
// between regions.
//
// The scheduler is a pure function of a Request and the intensities already
// in memory: it does no I/O and reads no clock (the Request carries the time),
// so the admission webhook can call it within its budget and the simulator
// can call it in virtual time.
package carbon
