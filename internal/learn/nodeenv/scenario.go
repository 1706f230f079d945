package nodeenv

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

// The load patterns.
const (
	// PatternTrace is internal/sim/workload's generator with the shape of
	// the Google cluster trace.
	PatternTrace = "trace"
	// PatternBurst is seed 003's test 1: create pods one after the other,
	// wait, delete them all, wait, again.
	PatternBurst = "burst"
	// PatternSliding is seed 003's test 2: create pods, then over and over
	// delete the oldest and create a new one.
	PatternSliding = "sliding"
)

// Patterns are the load patterns, in the order the CLI lists them.
var Patterns = []string{PatternTrace, PatternBurst, PatternSliding}

// Scenario is one simulated cluster and its load.
type Scenario struct {
	Nodes   int
	Pattern string
	// Duration is the simulated time.
	Duration time.Duration
	// Seed draws the node types, their order, the latencies and the load.
	Seed uint64
	// SensitiveShare is the fraction of pods with seed 003's latency
	// limits (soft 20 ms, hard 30 ms); the others have none.
	SensitiveShare float64
}

// Validate names the first field out of range.
func (s Scenario) Validate() error {
	switch {
	case s.Nodes <= 0:
		return fmt.Errorf("nodes %d: must be positive", s.Nodes)
	case !slices.Contains(Patterns, s.Pattern):
		return fmt.Errorf("pattern %q: must be one of %v", s.Pattern, Patterns)
	case s.Duration <= 0:
		return fmt.Errorf("duration %v: must be positive", s.Duration)
	case s.SensitiveShare < 0 || s.SensitiveShare > 1:
		return fmt.Errorf("sensitive share %g: must be in [0, 1]", s.SensitiveShare)
	}
	return nil
}

// The latency limits of seed 003's deployments (chapter 5), in ms.
const (
	SoftLimitMs = 20
	HardLimitMs = 30
)

// podSpec is one pod of the load: when it arrives and when it leaves.
type podSpec struct {
	arrive   time.Duration
	milliCPU int64
	memory   int64
	soft     float64
	hard     float64
	// leaveAt, when positive, is when the pod is deleted, running or not;
	// otherwise it completes runFor after it is bound (a Job).
	leaveAt time.Duration
	runFor  time.Duration
}

// traceGenerator is the trace's shape for a cluster of n nodes: about 40 %
// of the CPU requested at steady state on the mix of NodeTypes.
func traceGenerator(n int, window time.Duration) workload.Generator {
	perHour := 75.0 * float64(n)
	return workload.Generator{
		Tasks:           max(1, int(perHour*window.Hours())),
		Window:          window,
		CPUMilli:        workload.Dist{Kind: workload.LogNormal, Median: 500, Sigma: 0.9, Min: 50, Max: 8000},
		MemoryMiB:       workload.Dist{Kind: workload.LogNormal, Median: 1024, Sigma: 0.9, Min: 64, Max: 32768},
		DurationMinutes: workload.Dist{Kind: workload.LogNormal, Median: 10, Sigma: 0.8, Min: 0.5, Max: 240},
		// Tasks longer than 20 minutes are Deployments, deleted at their
		// submission plus duration; the others Jobs that run for it.
		ServiceThreshold: 20 * time.Minute,
	}
}

// load returns the pods of the scenario, ordered by arrival.
func (s Scenario) load(rng *rand.Rand) ([]podSpec, error) {
	var pods []podSpec
	// Seed 003 ran 30 pods of 250m and 64Mi on 3 nodes every 3 s; the
	// patterns keep 10 pods per node and the seed's cycle length.
	perNode := 10 * s.Nodes
	tick := func(seconds float64) time.Duration {
		return time.Duration(seconds * 3 / float64(s.Nodes) * float64(time.Second))
	}
	nginx := func(at time.Duration) podSpec {
		return podSpec{arrive: at, milliCPU: 250, memory: 64 << 20}
	}
	switch s.Pattern {
	case PatternTrace:
		tasks, err := traceGenerator(s.Nodes, s.Duration).Generate(rng.Uint64())
		if err != nil {
			return nil, err
		}
		for _, t := range tasks {
			p := podSpec{arrive: t.Submit, milliCPU: t.MilliCPU, memory: t.Memory, runFor: t.Duration}
			if t.Kind == placement.KindDeployment {
				p.leaveAt, p.runFor = t.Submit+t.Duration, 0
			}
			pods = append(pods, p)
		}
	case PatternBurst:
		// create perNode pods 3 s (scaled) apart, wait 20 s, delete all,
		// wait 5 s.
		for t := time.Duration(0); t < s.Duration; {
			start := len(pods)
			for range perNode {
				pods = append(pods, nginx(t))
				t += tick(3)
			}
			t += 20 * time.Second
			for i := start; i < len(pods); i++ {
				pods[i].leaveAt = t
			}
			t += 5 * time.Second
		}
	case PatternSliding:
		var live []int
		t := time.Duration(0)
		for range perNode {
			live = append(live, len(pods))
			pods = append(pods, nginx(t))
			t += tick(2)
		}
		for t < s.Duration {
			pods[live[0]].leaveAt = t
			live = live[1:]
			t += tick(3)
			live = append(live, len(pods))
			pods = append(pods, nginx(t))
			t += tick(1)
		}
	}
	for i := range pods {
		if rng.Float64() < s.SensitiveShare {
			pods[i].soft, pods[i].hard = SoftLimitMs, HardLimitMs
		}
	}
	return pods, nil
}
