package provision

import (
	"maps"
	"slices"
	"time"
)

// SettleTime is how long after a member came, went or changed readiness
// the provisioner waits before deciding, so that the workloads are placed
// again with the new membership first: until then their unplaced counts
// may be stale.
const SettleTime = 5 * time.Second

// Recheck is the time between two passes while the cloud cluster is being
// created or removed, or is unreachable, so that its joining, its end or
// its return is seen at once rather than a period later.
const Recheck = 2 * time.Second

// PhaseOf is the phase of a cloud cluster that exists: Ready while its
// member is reachable (joined, Ready and read); Unreachable when it was
// Ready once and is not reachable now; Provisioning before it was ever
// Ready.
func PhaseOf(wasReady, reachable bool) Phase {
	switch {
	case reachable:
		return Ready
	case wasReady:
		return Unreachable
	default:
		return Provisioning
	}
}

// PassInput is what one pass of the provisioner reads: the Input of the
// observation, where every drain stands, and when the membership last
// changed.
type PassInput struct {
	Input
	// Drains are the cloud nodes being drained for the provisioner (and
	// not asked of the backend to go yet), by name.
	Drains map[string]DrainState
	// MembersChanged is when a member last came, went or changed
	// readiness; zero when that is long past.
	MembersChanged time.Time
}

// Pass is one pass of the CloudProvisioner controller, the simulator's
// too: the drains' next steps, then, once the members settled, the
// decision, and when to pass again. The caller acts in this order:
// DrainSteps, Drained, Decision.
type Pass struct {
	Observation Observation
	// DrainSteps is each drained node's next step (NextDrainStep), by
	// name.
	DrainSteps map[string]DrainStep
	// Drained removes the drained nodes that are empty now: a RemoveNodes
	// decision, or None when there are none.
	Drained Decision
	// Decided is false while the members settle (SettleTime); Decision is
	// then None.
	Decided  bool
	Decision Decision
	// RequeueAfter is when the next pass is due: Recheck while the cloud
	// cluster is created or removed, the end of the settle time while the
	// members settle, else the period.
	RequeueAfter time.Duration
}

// Pass observes in, steps the drains and, once the members settled,
// decides (Decide, whose history it updates).
func (p *Provisioner) Pass(in PassInput) Pass {
	out := Pass{Observation: Observe(in.Input)}
	if c := in.Cloud; c != nil && c.Phase == Unreachable {
		// Its nodes and pods cannot be read, nor its pods evicted: the
		// drains wait for it, as everything else does.
		in.Drains = nil
	}
	out.DrainSteps, out.Drained = StepDrains(in.Drains, in.Now)
	if wait := in.MembersChanged.Add(SettleTime).Sub(in.Now); !in.MembersChanged.IsZero() && wait > 0 {
		out.Decision = Decision{Action: None, Reason: "the members changed: waiting for the workloads to be placed again"}
		out.RequeueAfter = min(wait, p.cfg.Period)
		return out
	}
	out.Decided = true
	out.Decision = p.Decide(out.Observation)
	out.RequeueAfter = p.cfg.Period
	if changing(out.Observation, out.Decision) {
		out.RequeueAfter = min(p.cfg.Period, Recheck)
	}
	return out
}

// changing reports whether the cloud cluster is being created or removed
// after d, or is unreachable: its joining, its end or its return is then
// seen within Recheck.
func changing(o Observation, d Decision) bool {
	switch d.Action {
	case ProvisionCluster, RemoveCluster:
		return true
	}
	return o.Cloud != nil && (o.Cloud.Phase == Provisioning || o.Cloud.Phase == Unreachable)
}

// StepDrains is every drain's next step (NextDrainStep) at now, by node,
// and the RemoveNodes decision that removes the nodes drained empty (None
// when there are none).
func StepDrains(drains map[string]DrainState, now time.Time) (map[string]DrainStep, Decision) {
	steps := make(map[string]DrainStep, len(drains))
	var removed []string
	for _, name := range slices.Sorted(maps.Keys(drains)) {
		step := NextDrainStep(drains[name], now, DrainTimeout)
		steps[name] = step
		if step == DrainRemove {
			removed = append(removed, name)
		}
	}
	if len(removed) == 0 {
		return steps, Decision{Action: None}
	}
	return steps, Decision{Action: RemoveNodes, Remove: removed, Reason: "drained: its pods run on the other cloud nodes"}
}
