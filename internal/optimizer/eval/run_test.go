package eval

import (
	"testing"
)

// TestRun runs a shortened default scenario and checks the invariants the
// report relies on; the goals themselves are measured by 'meridian
// advisor eval', not asserted here.
func TestRun(t *testing.T) {
	sc := DefaultScenario()
	sc.Steps = 600
	res, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Policies) != 4 {
		t.Fatalf("%d policies, want 4", len(res.Policies))
	}
	oracle := res.Policies[3]
	if oracle.InBand < 0.5 || oracle.AtMostMax != 1 {
		t.Errorf("oracle: %.3f in band, %.3f at most the maximum; want the maximum always kept", oracle.InBand, oracle.AtMostMax)
	}
	for _, p := range res.Policies {
		for i, c := range p.Replicas {
			if c < float64(sc.MinReplicas) || c > float64(sc.MaxReplicas) || !finite(p.Latency[i]) {
				t.Fatalf("%s interval %d: %v replicas, latency %v: out of bounds", p.Name, i, c, p.Latency[i])
			}
		}
		// No policy that keeps the maximum can use fewer replica-hours
		// than the oracle, which uses the fewest that do.
		if p.AtMostMax == 1 && p.ReplicaHours < oracle.ReplicaHours-1e-9 {
			t.Errorf("%s: %.1f replica-hours below the oracle's %.1f while always in band", p.Name, p.ReplicaHours, oracle.ReplicaHours)
		}
		t.Logf("%-45s %7.1f replica-h  cost %6.2f  in band %5.1f%%  <= max %5.1f%%  production after %d", p.Name, p.ReplicaHours, p.Cost, 100*p.InBand, 100*p.AtMostMax, p.SamplesToProduction)
	}
	if m := res.Policies[1]; m.SamplesToProduction < 0 {
		t.Errorf("meridian never reached production in %d intervals", sc.Steps)
	}
}
