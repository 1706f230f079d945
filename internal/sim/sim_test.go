package sim_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/sim"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func run(t testing.TB, name string, seed *uint64) *sim.Result {
	t.Helper()
	sc, err := scenario.Load(name)
	if err != nil {
		t.Fatalf("Load(%q) error: %v", name, err)
	}
	r, err := sim.Run(t.Context(), sc, sim.Options{Seed: seed})
	if err != nil {
		t.Fatalf("Run(%q) error: %v", name, err)
	}
	return r
}

func policy(t *testing.T, r *sim.Result, name string) sim.Summary {
	t.Helper()
	for _, p := range r.Policies {
		if p.Policy == name {
			return p.Summary
		}
	}
	t.Fatalf("scenario %s has no policy %q", r.Scenario, name)
	return sim.Summary{}
}

// TestVIBTargets checks issue 3's targets on seed 001's experiment VI-B:
// the KubeFed baseline leaves a large fraction of pods pending, and Meridian
// keeps it at or below 1% with bursting to the cloud, without allocating any
// cluster beyond its capacity.
func TestVIBTargets(t *testing.T) {
	r := run(t, "vi-b", nil)
	kubefed, meridian := policy(t, r, "kubefed"), policy(t, r, "meridian")
	type targets struct {
		BaselinePendingAtLeast30Percent bool
		BaselineOvercommits             bool
		MeridianPendingAtMost1Percent   bool
		MeridianWithinCapacity          bool
		MeridianBurstsToTheCloud        bool
		MeridianPullsBack               bool
	}
	want := targets{true, true, true, true, true, true}
	got := targets{
		BaselinePendingAtLeast30Percent: kubefed.MaxPendingFraction >= 0.30,
		BaselineOvercommits:             kubefed.MaxClusterAllocation > 1,
		MeridianPendingAtMost1Percent:   meridian.MaxPendingFraction <= 0.01,
		MeridianWithinCapacity:          meridian.MaxClusterAllocation <= 1,
		MeridianBurstsToTheCloud:        meridian.CloudCPUHours > 0 && meridian.CloudReadyAtSeconds != nil,
		MeridianPullsBack:               meridian.ReplicasMovedBack > 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("VI-B targets (-want +got):\n%s\nkubefed: pending %.3f, allocation %.2f\nmeridian: pending %.4f, allocation %.3f, cloud %.1f CPU-hours, moved back %d",
			diff, kubefed.MaxPendingFraction, kubefed.MaxClusterAllocation,
			meridian.MaxPendingFraction, meridian.MaxClusterAllocation, meridian.CloudCPUHours, meridian.ReplicasMovedBack)
	}
}

// deterministic returns the JSON of r without the wall-clock decision
// times, the only numbers that may differ between runs with one seed.
func deterministic(t testing.TB, r *sim.Result) []byte {
	t.Helper()
	for i := range r.Policies {
		r.Policies[i].DecisionP50Seconds, r.Policies[i].DecisionP99Seconds = 0, 0
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestDeterminism(t *testing.T) {
	seven, eight := uint64(7), uint64(8)
	first := deterministic(t, run(t, "vi-b", &seven))
	second := deterministic(t, run(t, "vi-b", &seven))
	if diff := cmp.Diff(string(first), string(second)); diff != "" {
		t.Errorf("same seed, different results (-first +second):\n%s", diff)
	}
	if other := deterministic(t, run(t, "vi-b", &eight)); bytes.Equal(first, other) {
		t.Errorf("seeds 7 and 8 gave the same results")
	}
}

// TestGolden pins every built-in scenario's results; refresh them with
// go test ./internal/sim -update after a deliberate change.
func TestGolden(t *testing.T) {
	for _, name := range []string{"vi-b", "vi-c", "vi-d", "heavy-tail"} {
		t.Run(name, func(t *testing.T) {
			got := deterministic(t, run(t, name, nil))
			path := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("results differ from %s (-want +got):\n%s", path, diff)
			}
		})
	}
}

func TestScenarioBehaviour(t *testing.T) {
	vic := run(t, "vi-c", nil)
	vid := run(t, "vi-d", nil)
	local := func(s sim.Summary) float64 {
		if s.TrafficLocalFraction == nil {
			return -1
		}
		return *s.TrafficLocalFraction
	}
	type behaviour struct {
		TrafficAwareFollowsUsers  bool
		WorstFitStays             bool
		BurstReachesTheCloud      bool
		CloudRemovedAfterTheLoad  bool
		MeridianPendingAtMost1Pct bool
	}
	meridian := policy(t, vid, "meridian")
	got := behaviour{
		TrafficAwareFollowsUsers:  local(policy(t, vic, "traffic-aware")) > 0.9,
		WorstFitStays:             local(policy(t, vic, "worst-fit")) < 0.5,
		BurstReachesTheCloud:      meridian.CloudMaxCores > 0,
		CloudRemovedAfterTheLoad:  meridian.CloudRemovedAtSeconds != nil,
		MeridianPendingAtMost1Pct: meridian.MaxPendingFraction <= 0.01,
	}
	if diff := cmp.Diff(behaviour{true, true, true, true, true}, got); diff != "" {
		t.Errorf("VI-C and VI-D behaviour (-want +got):\n%s", diff)
	}
}

func BenchmarkVIB(b *testing.B) {
	sc, err := scenario.Load("vi-b")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := sim.Run(b.Context(), sc, sim.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMemberOutage runs examples/scenarios/member-outage.yaml: it cuts the
// member that runs a service off the control
// plane: its replicas are held for the failover grace, then placed on the
// other member, and once it returns, where the service runs is corrected so
// that nothing runs twice. With a grace longer than the outage, the
// replicas are only held.
func TestMemberOutage(t *testing.T) {
	tests := []struct {
		name          string
		grace         string
		wantKinds     []string
		wantNearBound int
	}{
		{name: "failover after the grace", grace: "1m", wantKinds: []string{sim.EventMemberLost, sim.EventFailedOver, sim.EventMemberReturned}, wantNearBound: 4},
		{name: "held through a shorter outage", grace: "5m", wantKinds: []string{sim.EventMemberLost, sim.EventMemberReturned}, wantNearBound: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", "scenarios")
			data, err := os.ReadFile(filepath.Join(dir, "member-outage.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte("failoverGrace: 1m"), []byte("failoverGrace: "+tc.grace), 1)
			sc, err := scenario.Parse(data, "member-outage.yaml", os.DirFS(dir), ".")
			if err != nil {
				t.Fatal(err)
			}
			r, err := sim.Run(t.Context(), sc, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := r.Policies[0]
			var kinds []string
			for _, e := range p.Events {
				kinds = append(kinds, e.Kind)
			}
			if diff := cmp.Diff(tc.wantKinds, kinds); diff != "" {
				t.Errorf("events (-want +got):\n%s\n%v", diff, p.Events)
			}
			near := 0
			for _, c := range p.Summary.Clusters {
				if c.Cluster == "near" {
					near = c.ReplicasScheduled
				}
			}
			if near != tc.wantNearBound {
				t.Errorf("replicas bound in near = %d, want %d", near, tc.wantNearBound)
			}
			want := map[string]map[string]int32{"MultiClusterDeployment/default/web": {"home": 4}}
			if diff := cmp.Diff(want, p.Placements); diff != "" {
				t.Errorf("placements at the end (-want +got):\n%s", diff)
			}
		})
	}
}
