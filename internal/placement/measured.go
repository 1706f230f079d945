package placement

import (
	"fmt"
	"time"
)

// DefaultMeasuredLatencyMaxAge is how long a measured round-trip time
// stands for the link: older, the declared one counts again (a prober that
// stopped answering must not hold a link at its last value for ever).
const DefaultMeasuredLatencyMaxAge = 2 * time.Minute

// MeasuredLatency is, between two clusters, when the round-trip time of
// the snapshot's Latency was measured; a link it lacks was declared.
type MeasuredLatency map[string]map[string]time.Time

// At returns when the value Latency.Between(a, b) reads was measured: the
// link a→b when l has it, else b→a, as Between looks them up.
func (m MeasuredLatency) At(l Latency, a, b string) (time.Time, bool) {
	if _, ok := l[a][b]; ok {
		t, ok := m[a][b]
		return t, ok
	}
	t, ok := m[b][a]
	return t, ok
}

// ChooseLatency is the rule between a declared and a measured round-trip
// time of one link: the measurement while it is at most maxAge old at now,
// else the declaration. It reports the time chosen, when it was measured
// (zero for a declared one), and false when neither is known.
func ChooseLatency(declared time.Duration, hasDeclared bool, measured time.Duration, measuredAt time.Time, hasMeasured bool, now time.Time, maxAge time.Duration) (time.Duration, time.Time, bool) {
	if hasMeasured && !now.After(measuredAt.Add(maxAge)) {
		return measured, measuredAt, true
	}
	return declared, time.Time{}, hasDeclared
}

// LatencyFact is what a decision knew of the round-trip time between the
// workload's latency origin (LatencyOrigin, else its first location) and a
// cluster, for the explanation.
type LatencyFact struct {
	// Origin is empty when the workload has none or the link is unknown.
	Origin string
	RTT    time.Duration
	// MeasuredAt is when the RTT was measured; zero when it was declared.
	MeasuredAt time.Time
}

// String explains the fact for a decision's message: "2.16ms from
// cluster2 (measured at 2026-11-28T22:50:46Z)", or "(declared)"; empty when
// there is none.
func (f LatencyFact) String() string {
	if f.Origin == "" {
		return ""
	}
	source := "declared"
	if !f.MeasuredAt.IsZero() {
		source = "measured at " + f.MeasuredAt.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("%s from %s (%s)", f.RTT, f.Origin, source)
}

// Explain appends the fact to a decision's message.
func (f LatencyFact) Explain(message string) string {
	if s := f.String(); s != "" {
		return message + "; " + s
	}
	return message
}

// latencyOrigin is the cluster a workload's latencies are counted from.
func latencyOrigin(w *Workload) string {
	if w.LatencyOrigin != "" {
		return w.LatencyOrigin
	}
	if len(w.Locations) > 0 {
		return w.Locations[0]
	}
	return ""
}

// latencyView is a snapshot's round-trip times seen from one origin.
type latencyView struct {
	origin   string
	latency  Latency
	measured MeasuredLatency
}

// fact returns the round-trip time between the origin and cluster.
func (v latencyView) fact(cluster string) LatencyFact {
	if v.origin == "" || v.origin == cluster {
		return LatencyFact{}
	}
	rtt, ok := v.latency.Between(v.origin, cluster)
	if !ok {
		return LatencyFact{}
	}
	at, _ := v.measured.At(v.latency, v.origin, cluster)
	return LatencyFact{Origin: v.origin, RTT: rtt, MeasuredAt: at}
}
