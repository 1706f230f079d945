package provision

import "time"

// DrainTimeout is how long the pods of a node being drained may take to
// be evicted, PodDisruptionBudgets permitting, before the node is given
// back.
const DrainTimeout = 10 * time.Minute

// DrainState is where the drain of a node that consolidation chose
// (Decision.Drain) stands: the node was cordoned at Started and its pods
// are evicted through the Eviction API, which refuses an eviction that
// would break a PodDisruptionBudget.
type DrainState struct {
	// Started is when the node was cordoned.
	Started time.Time
	// Pods are the pods still on the node that a drain moves (MovesPod),
	// and Evictable those of them not terminating yet: evicted pods that
	// are still terminating are waited for.
	Pods      int
	Evictable int
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

// NextDrainStep is the drain rule, in the time of now, for the controller
// and the simulator alike: a node is removed once empty; while pods are
// left it evicts those not terminating yet and waits for the others,
// until timeout after the drain started, when it gives the node back.
func NextDrainStep(s DrainState, now time.Time, timeout time.Duration) DrainStep {
	switch {
	case s.Pods == 0:
		return DrainRemove
	case now.Sub(s.Started) >= timeout:
		return DrainAbandon
	case s.Evictable > 0:
		return DrainEvict
	default:
		return DrainWait
	}
}
