package nodeenv

import (
	"math"
	"math/rand/v2"
	"time"
)

// Latency is the latency from each node to the pods' users over time. The
// nodes are spread over zones; a zone's latency is a base plus a sinusoid
// (the users' day moving across the world, compressed to Period) with its
// own phase, and each node adds a fixed offset of its own.
type Latency struct {
	Period time.Duration
	base   []float64 // per zone, ms
	amp    []float64
	phase  []float64
	zone   []int // per node
	offset []float64
}

// NewLatency draws zones and offsets for nodes from rng: zones have bases
// of 6-36 ms and amplitudes of 4-12 ms, so that at any time some zones are
// beyond seed 003's 30 ms hard limit and some within its 20 ms soft limit.
func NewLatency(rng *rand.Rand, nodes, zones int, period time.Duration) *Latency {
	l := &Latency{Period: period}
	for z := range zones {
		l.base = append(l.base, 6+30*float64(z)/float64(max(zones-1, 1)))
		l.amp = append(l.amp, 4+8*rng.Float64())
		l.phase = append(l.phase, 2*math.Pi*rng.Float64())
	}
	for range nodes {
		l.zone = append(l.zone, rng.IntN(zones))
		l.offset = append(l.offset, 3*rng.Float64())
	}
	return l
}

// At is node i's latency in milliseconds at t.
func (l *Latency) At(i int, t time.Duration) float64 {
	z := l.zone[i]
	w := 2 * math.Pi * float64(t) / float64(l.Period)
	return math.Max(1, l.base[z]+l.amp[z]*math.Sin(w+l.phase[z])+l.offset[i])
}
