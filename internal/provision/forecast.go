package provision

import (
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

type sample struct {
	at      time.Time
	demand  placement.Resources
	largest placement.Resources
}

// trend keeps the demand history of the last window and extrapolates it.
type trend struct {
	window  time.Duration
	samples []sample
}

func (t *trend) add(at time.Time, d, largest placement.Resources) {
	cutoff := at.Add(-t.window)
	kept := t.samples[:0]
	for _, s := range t.samples {
		if !s.at.Before(cutoff) {
			kept = append(kept, s)
		}
	}
	t.samples = append(kept, sample{at: at, demand: d, largest: largest})
}

// known reports whether the history is long enough to forecast from:
// three samples over half the window.
func (t *trend) known() bool {
	n := len(t.samples)
	return n >= 3 && t.samples[n-1].at.Sub(t.samples[0].at) >= t.window/2
}

// forecast is the latest demand plus the rising part of the least-squares
// slope over the window times lead.
func (t *trend) forecast(lead time.Duration) placement.Resources {
	if len(t.samples) == 0 {
		return placement.Resources{}
	}
	last := t.samples[len(t.samples)-1].demand
	if !t.known() || last.Pods == 0 {
		// Too short a history to tell a trend from the start of the run.
		return last
	}
	cpu := slope(t.samples, func(r placement.Resources) float64 { return float64(r.MilliCPU) })
	mem := slope(t.samples, func(r placement.Resources) float64 { return float64(r.Memory) })
	secs := lead.Seconds()
	return placement.Resources{
		MilliCPU: last.MilliCPU + int64(max(0, cpu)*secs),
		Memory:   last.Memory + int64(max(0, mem)*secs),
		Pods:     last.Pods,
	}
}

// slope is the least-squares slope of f over the samples, per second.
func slope(ss []sample, f func(placement.Resources) float64) float64 {
	t0 := ss[0].at
	var sx, sy, sxx, sxy float64
	for _, s := range ss {
		x := s.at.Sub(t0).Seconds()
		y := f(s.demand)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	n := float64(len(ss))
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

// largest is the largest request seen over the window.
func (t *trend) largest() placement.Resources {
	var r placement.Resources
	for _, s := range t.samples {
		if larger(s.largest, r) {
			r = s.largest
		}
	}
	return r
}
