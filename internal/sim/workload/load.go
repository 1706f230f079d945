package workload

import (
	"fmt"
	"slices"
	"time"
)

// Point is one point of a curve.
type Point struct {
	At    time.Duration `json:"at"`
	Value float64       `json:"value"`
}

// Curve is a level over time, linear between points and flat before the
// first and after the last.
type Curve []Point

// Validate reports the index of the first point out of order.
func (c Curve) Validate() (int, error) {
	if len(c) == 0 {
		return 0, fmt.Errorf("a curve needs at least one point")
	}
	for i, p := range c {
		if p.Value < 0 {
			return i, fmt.Errorf("value %g: must not be negative", p.Value)
		}
		if i > 0 && p.At <= c[i-1].At {
			return i, fmt.Errorf("at %v: points must be in increasing time", p.At)
		}
	}
	return 0, nil
}

// At is the level at t.
func (c Curve) At(t time.Duration) float64 {
	if len(c) == 0 {
		return 0
	}
	i, _ := slices.BinarySearchFunc(c, t, func(p Point, t time.Duration) int {
		switch {
		case p.At < t:
			return -1
		case p.At > t:
			return 1
		}
		return 0
	})
	switch {
	case i == 0:
		return c[0].Value
	case i == len(c):
		return c[len(c)-1].Value
	}
	a, b := c[i-1], c[i]
	f := float64(t-a.At) / float64(b.At-a.At)
	return a.Value + f*(b.Value-a.Value)
}

// Hop is where a traffic source is from a time on.
type Hop struct {
	At      time.Duration `json:"at"`
	Cluster string        `json:"cluster"`
}

// Route is where a traffic source is over time: at each hop it moves to the
// hop's cluster and stays until the next.
type Route []Hop

// At is the cluster the source is at at t, or "" before the first hop.
func (r Route) At(t time.Duration) string {
	at := ""
	for _, h := range r {
		if h.At > t {
			break
		}
		at = h.Cluster
	}
	return at
}

// Load is the traffic one service receives: a level (for example requests
// per second or concurrent users) that follows Curve, from the cluster the
// Route is at, each unit of which costs MilliCPUPerUnit of CPU to serve.
type Load struct {
	Route           Route   `json:"route"`
	Curve           Curve   `json:"curve"`
	MilliCPUPerUnit float64 `json:"milliCPUPerUnit"`
}

// At returns, at t, the cluster the traffic comes from, its level and the
// CPU in millicores it takes to serve.
func (l Load) At(t time.Duration) (cluster string, level, milliCPU float64) {
	level = l.Curve.At(t)
	return l.Route.At(t), level, level * l.MilliCPUPerUnit
}
