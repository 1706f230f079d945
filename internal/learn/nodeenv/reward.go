package nodeenv

import (
	"fmt"
	"slices"
)

// The rewards.
const (
	// RewardEE is energy efficiency: minus the rise in cluster power the
	// placement causes, per 100 W. Waking a node costs its idle power,
	// adding to a running node only the rise along its curve.
	RewardEE = "EE"
	// RewardLB is load balancing: minus the rise in the standard deviation
	// of the nodes' CPU allocation fraction, times 10.
	RewardLB = "LB"
	// RewardELRL is EE minus 0.5 when the node's latency is beyond the
	// pod's soft limit (seed 003's r3 halves there); the hard limit is the
	// mask, so it is never broken.
	RewardELRL = "EL-RL"
)

// Rewards are the rewards, in the order the CLI lists them.
var Rewards = []string{RewardEE, RewardLB, RewardELRL}

// ValidateReward reports an unknown reward.
func ValidateReward(r string) error {
	if !slices.Contains(Rewards, r) {
		return fmt.Errorf("reward %q: must be one of %v", r, Rewards)
	}
	return nil
}

// softPenalty is EL-RL's penalty for a placement beyond the soft limit:
// about the power of waking a small node (55 W), so a pod goes to a node
// within its soft limit unless that costs a node more.
const softPenalty = 0.5

// reward is the reward of a placement from what it changed.
func reward(kind string, dWatts, dImbalance, latencyMs, softMs float64) float64 {
	switch kind {
	case RewardLB:
		return -10 * dImbalance
	case RewardELRL:
		r := -dWatts / 100
		if softMs > 0 && latencyMs > softMs {
			r -= softPenalty
		}
		return r
	default:
		return -dWatts / 100
	}
}
