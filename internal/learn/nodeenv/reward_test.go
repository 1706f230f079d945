package nodeenv

import (
	"math"
	"testing"
)

// TestRewards checks the rewards on placements whose physical changes are
// known: EE charges a woken node's idle power by the pod's share of the
// node, not whole, so that waking the node that serves a core for less
// idle power is the cheaper placement.
func TestRewards(t *testing.T) {
	haswell, milan := NodeTypes[0], NodeTypes[2]
	wake := func(pm PowerModel, cpu float64) outcome {
		share := cpu / float64(pm.VCPUs)
		return outcome{DWatts: pm.Watts(share), IdleWatts: pm.IdleWatts, Woke: true, CPUShare: share}
	}
	tests := []struct {
		name string
		kind string
		o    outcome
		want float64
	}{
		{name: "EE, onto a running node: the rise and the idle share", kind: RewardEE,
			o: outcome{DWatts: 3, IdleWatts: 100, CPUShare: 0.05}, want: -(3 + 5) / 10.0},
		{name: "EE, waking a node: its idle power counts by the pod's share only", kind: RewardEE,
			o: outcome{DWatts: 103, IdleWatts: 100, Woke: true, CPUShare: 0.05}, want: -(3 + 5) / 10.0},
		{name: "EL-RL within the soft limit is EE", kind: RewardELRL,
			o: outcome{DWatts: 3, IdleWatts: 100, CPUShare: 0.05, LatencyMs: 10, SoftMs: 20}, want: -0.8},
		{name: "EL-RL beyond the soft limit", kind: RewardELRL,
			o: outcome{DWatts: 3, IdleWatts: 100, CPUShare: 0.05, LatencyMs: 25, SoftMs: 20}, want: -0.8 - softPenalty},
		{name: "EL-RL, a pod without a soft limit", kind: RewardELRL,
			o: outcome{DWatts: 3, IdleWatts: 100, CPUShare: 0.05, LatencyMs: 25}, want: -0.8},
		{name: "LB is the rise in imbalance", kind: RewardLB, o: outcome{DWatts: 100, DImbalance: 0.02}, want: -0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reward(tc.kind, tc.o); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("reward = %g, want %g", got, tc.want)
			}
		})
	}
	// A 2-vCPU pod: waking milan-64 costs less than waking haswell-16.
	if m, h := reward(RewardEE, wake(milan, 2)), reward(RewardEE, wake(haswell, 2)); m <= h {
		t.Errorf("EE of waking milan-64 %g, of haswell-16 %g: want milan-64's higher", m, h)
	}
}
