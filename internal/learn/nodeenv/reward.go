package nodeenv

import (
	"fmt"
	"slices"
)

// The rewards.
const (
	// RewardEE is energy efficiency: minus the power the placement costs,
	// per 10 W: the rise of the node's power along its curve, plus the
	// node's idle power times the pod's share of its CPU capacity (the
	// pod's part of the idle power, as Cloud Carbon Footprint attributes
	// it). Charging a pod only its share of the idle power of the node it
	// wakes, not the whole, is what lets a policy wake a node that serves
	// a core for less (milan-64: 2.1 W idle per vCPU, haswell-16: 3.6 W)
	// although the node's own idle power is higher: a reward charging
	// the whole idle power prefers the smallest node to wake, as
	// MostAllocated does.
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
// 5 W in EE's units, the idle power of about one and a half vCPUs of a
// haswell-16.
const softPenalty = 0.5

// outcome is what a placement changed, in physical units.
type outcome struct {
	// DWatts is the rise in cluster power, DImbalance in the standard
	// deviation of the nodes' CPU allocation fraction.
	DWatts, DImbalance float64
	// IdleWatts is the node's idle power; Woke says the node ran no pod
	// before; CPUShare is the pod's CPU over the node's allocatable.
	IdleWatts float64
	Woke      bool
	CPUShare  float64
	// LatencyMs is the node's latency to the users, SoftMs the pod's soft
	// limit (0: none).
	LatencyMs, SoftMs float64
}

// reward is the reward of a placement from what it changed.
func reward(kind string, o outcome) float64 {
	if kind == RewardLB {
		return -10 * o.DImbalance
	}
	w := o.DWatts + o.IdleWatts*o.CPUShare
	if o.Woke {
		w -= o.IdleWatts
	}
	r := -w / 10
	if kind == RewardELRL && o.SoftMs > 0 && o.LatencyMs > o.SoftMs {
		r -= softPenalty
	}
	return r
}
