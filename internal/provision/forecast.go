package provision

import (
	"math"
	"slices"
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
	window time.Duration
	// spacing is the least time between two samples but the newest: the
	// decision period.
	spacing time.Duration
	samples []sample
}

// A reach is what a forecast is for, which sets how far ahead it looks
// (Provisioner.lead) and how it reads the trend. A node bought late costs
// a node's delay of pending and a cluster bought late a cluster's, so the
// cluster forecasts look further and keep a margin for noise while the
// node forecast follows only a rise that goes on. Over 64 simulated runs
// this keeps as many runs at or below 1 % pending as the plain window
// slope, for less cloud (docs/design/20261123-predictive-cost.md).
type reach int

const (
	// forNodes is for the nodes added, kept or drained, and the trend
	// reported: a node's delay ahead. The slope is the lower of the
	// window's and of its last half's, so that nodes are not bought for a
	// rise that has ended; a node bought late costs one node delay.
	forNodes reach = iota
	// forKeeping is for whether an idle cloud cluster stays: a cluster's
	// delay ahead, with the cautious slope of forNodes plus the margin.
	forKeeping
	// forBuying is for whether to buy a cloud cluster: a cluster's and a
	// node's delay ahead, with the window's slope plus the margin. A
	// cluster bought late leaves the rise pending for the whole cluster
	// delay, so its purchase follows the whole window, not a lull in it.
	forBuying
)

// marginZ is how many standard deviations of the demand around its
// trend line the cluster forecasts (forKeeping, forBuying) add while the
// line of its CPU rises: the noise a cluster's longer lead cannot wait
// out.
const marginZ = 0.5

// add records the demand at at. A sample less than spacing after the one
// before the newest replaces the newest (keeping the larger largest), so
// that the history holds about one sample a period however often the
// controller is woken (every 2 s while a cluster is provisioned), as the
// simulator's does: a burst of wake-ups must not outweigh the rest of the
// window in the line's fit.
func (t *trend) add(at time.Time, d, largest placement.Resources) {
	cutoff := at.Add(-t.window)
	kept := t.samples[:0]
	for _, s := range t.samples {
		if !s.at.Before(cutoff) {
			kept = append(kept, s)
		}
	}
	if n := len(kept); n >= 2 && at.Sub(kept[n-2].at) < t.spacing {
		if larger(kept[n-1].largest, largest) {
			largest = kept[n-1].largest
		}
		kept[n-1] = sample{at: at, demand: d, largest: largest}
		t.samples = kept
		return
	}
	t.samples = append(kept, sample{at: at, demand: d, largest: largest})
}

// recent are the samples of the later half of the history's span.
func (t *trend) recent() []sample {
	first, last := t.samples[0].at, t.samples[len(t.samples)-1].at
	mid := first.Add(last.Sub(first) / 2)
	i, _ := slices.BinarySearchFunc(t.samples, mid, func(s sample, at time.Time) int { return s.at.Compare(at) })
	return t.samples[i:]
}

// known reports whether the history is long enough to forecast from:
// three samples over half the window.
func (t *trend) known() bool {
	n := len(t.samples)
	return n >= 3 && t.samples[n-1].at.Sub(t.samples[0].at) >= t.window/2
}

func milliCPU(r placement.Resources) float64 { return float64(r.MilliCPU) }
func memory(r placement.Resources) float64   { return float64(r.Memory) }

// forecast is the latest demand plus the rising part of the trend's slope
// times lead, read as r asks, plus r's margin.
func (t *trend) forecast(lead time.Duration, r reach) placement.Resources {
	if len(t.samples) == 0 {
		return placement.Resources{}
	}
	last := t.samples[len(t.samples)-1].demand
	if !t.known() || last.Pods == 0 {
		// Too short a history to tell a trend from the start of the run.
		return last
	}
	cpuLine, memLine := fit(t.samples, milliCPU), fit(t.samples, memory)
	cpu, mem := cpuLine.slope, memLine.slope
	if r != forBuying {
		if recent := t.recent(); len(recent) >= 3 {
			cpu = min(cpu, fit(recent, milliCPU).slope)
			mem = min(mem, fit(recent, memory).slope)
		}
	}
	// The CPU line says whether the demand rises, for both margins, as
	// it does for the trend reported.
	var cpuMargin, memMargin float64
	if r != forNodes && cpuLine.slope > 0 {
		cpuMargin = marginZ * cpuLine.deviation(t.samples, milliCPU)
		memMargin = marginZ * memLine.deviation(t.samples, memory)
	}
	secs := lead.Seconds()
	return placement.Resources{
		MilliCPU: last.MilliCPU + int64(max(0, cpu)*secs+cpuMargin),
		Memory:   last.Memory + int64(max(0, mem)*secs+memMargin),
		Pods:     last.Pods,
	}
}

// line is a least-squares line through samples: y = intercept + slope·x,
// x in seconds from t0.
type line struct {
	t0               time.Time
	intercept, slope float64
}

// fit is the least-squares line of f over the samples, which are not
// empty.
func fit(ss []sample, f func(placement.Resources) float64) line {
	l := line{t0: ss[0].at}
	var sx, sy, sxx, sxy float64
	for _, s := range ss {
		x := s.at.Sub(l.t0).Seconds()
		y := f(s.demand)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	n := float64(len(ss))
	if den := n*sxx - sx*sx; den != 0 {
		l.slope = (n*sxy - sx*sy) / den
	}
	l.intercept = (sy - l.slope*sx) / n
	return l
}

// deviation is the standard deviation of f over the samples around l.
func (l line) deviation(ss []sample, f func(placement.Resources) float64) float64 {
	var sum float64
	for _, s := range ss {
		e := f(s.demand) - (l.intercept + l.slope*s.at.Sub(l.t0).Seconds())
		sum += e * e
	}
	return math.Sqrt(sum / float64(len(ss)))
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
