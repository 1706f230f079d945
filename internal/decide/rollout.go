package decide

import (
	"maps"
	"slices"
)

// Rollout is how a plan reaches the members: members that grow first,
// members that shrink once that keeps the workload available.
type Rollout struct {
	// Grow names the members whose Deployment is created, raised or
	// rewritten from the current spec, in name order.
	Grow []string
	// Shrink names the members that lose replicas now (their Deployment is
	// deleted when the target is zero); empty while Waiting.
	Shrink []string
	// Waiting is true while members that lose replicas wait for the
	// replicas added elsewhere to be ready.
	Waiting bool
	// Move is true when Shrink is part of a move (a pull-back, a
	// rebalance, overflow or failover) rather than a scale-down: the
	// workload's disruption budgets then hold it too, which the caller
	// checks. Kubernetes does not hold a scale-down for a
	// PodDisruptionBudget, and neither does Meridian.
	Move bool
	// Unreachable names members that should change but are not connected.
	Unreachable []string
	// ReadyAfter is how many replicas stay ready once Shrink is written.
	ReadyAfter int32
}

// rollout orders the writes of p. A member Deployment that shrinks removes
// its unready pods first, so each member keeps min(ready, target) ready: a
// pure scale-down passes at once, while a move waits until the replicas
// added elsewhere are ready.
func rollout(p *DeploymentPlan, members map[string]Member) Rollout {
	var out Rollout
	var shrink []string
	for _, name := range slices.Sorted(maps.Keys(members)) {
		m := members[name]
		want := p.Target[name]
		switch {
		case !m.Ready:
			continue // held: nothing can be written
		case !m.Connected:
			if want != m.Replicas {
				out.Unreachable = append(out.Unreachable, name)
			}
		case want > 0 && (!m.Exists || want > m.Replicas || !m.UpToDate):
			out.Grow = append(out.Grow, name)
		case want < m.Replicas || (want == 0 && m.Exists):
			shrink = append(shrink, name)
		}
	}
	var now, after int32
	for name, m := range members {
		if m.Ready {
			now += m.ReadyReplicas
			after += min(m.ReadyReplicas, p.Target[name])
		}
	}
	out.ReadyAfter = after
	if len(shrink) > 0 && after < min(now, p.Workload.Replicas) {
		out.Waiting = true
		return out
	}
	out.Shrink = shrink
	out.Move = len(shrink) > 0
	for _, name := range shrink {
		// A member written from an older spec shrinks because the spec
		// asked for fewer: a scale-down.
		out.Move = out.Move && members[name].UpToDate
	}
	return out
}
