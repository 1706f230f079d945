package provision

import "time"

// DrainState is where the drain of a node that consolidation chose
// stands: the controller cordoned it at Started and evicts its pods
// through the Eviction API, which refuses an eviction that would break a
// PodDisruptionBudget.
type DrainState struct {
	// Started is when the node was cordoned.
	Started time.Time
	// Pods are the pods still on the node that a drain evicts (not
	// DaemonSet or mirror pods, nor pods already terminating).
	Pods int
	// Blocked are the pods whose eviction a PodDisruptionBudget refused at
	// the last attempt.
	Blocked int
}

// DrainStep is what to do next with a node being drained.
type DrainStep string

// The steps of a drain.
const (
	// DrainEvict evicts the node's pods (again): those a budget refused
	// are tried at the next period, when the budget may allow them.
	DrainEvict DrainStep = "Evict"
	// DrainWait waits for evicted pods to terminate.
	DrainWait DrainStep = "Wait"
	// DrainRemove removes the node: nothing is left on it.
	DrainRemove DrainStep = "Remove"
	// DrainAbandon gives the node back (uncordons it): its pods could not
	// be evicted within the timeout without breaking a budget, and a
	// budget is never overridden.
	DrainAbandon DrainStep = "Abandon"
)

// NextDrainStep is the drain rule, in the time of now: a node is removed
// once empty; while pods are left it evicts them, until timeout after the
// drain started, when it gives the node back. Pods evicted and still
// terminating (Pods > 0, nothing to evict) are waited for within the same
// timeout.
func NextDrainStep(s DrainState, evictable int, now time.Time, timeout time.Duration) DrainStep {
	switch {
	case s.Pods == 0:
		return DrainRemove
	case now.Sub(s.Started) >= timeout:
		return DrainAbandon
	case evictable > 0:
		return DrainEvict
	default:
		return DrainWait
	}
}
