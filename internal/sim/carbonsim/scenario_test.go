package carbonsim

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
	"github.com/meridian-dev/meridian/internal/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func newScenario(t *testing.T, opts Options) *Scenario {
	t.Helper()
	engine, err := policy.New(t.Context(), policy.Options{})
	if err != nil {
		t.Fatalf("policy.New() error = %v", err)
	}
	t.Cleanup(func() { _ = engine.Close() })
	data, err := offline.Default()
	if err != nil {
		t.Fatalf("offline.Default() error = %v", err)
	}
	s, err := New(t.Context(), engine, data, opts)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	return s
}

// goldenJob is what the golden file records of a job.
type goldenJob struct {
	Name, Origin      string
	Arrival, Deadline time.Time
	Duration          string
	VCPU              int64
	MaxLatencyMs      float64 `json:",omitempty"`
	Residency         string  `json:",omitempty"`
	Candidates        []string
}

// TestScenarioGolden pins the built-in scenario's regions, capacities and
// first jobs: a change to the trace generator, the policy data or the
// offline data shows here (refresh with go test -update).
func TestScenarioGolden(t *testing.T) {
	s := newScenario(t, Options{Jobs: 200})
	var got struct {
		Name    string
		Regions []Region
		Jobs    []goldenJob
	}
	got.Name, got.Regions = s.Name, s.Regions
	for _, j := range s.Jobs[:15] {
		g := goldenJob{Name: j.Name, Origin: j.Origin, Arrival: j.Arrival, Deadline: j.Deadline, Duration: j.Duration.String(),
			VCPU: j.CPUMilli / 1000, MaxLatencyMs: j.MaxLatencyMs, Residency: j.Residency}
		for _, c := range j.Candidates {
			g.Candidates = append(g.Candidates, carbon.RegionKey(c))
		}
		got.Jobs = append(got.Jobs, g)
	}
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "scenario-seed-1-200-jobs.golden.json")
	if *update {
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file (go test -update writes it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(data)+"\n"); diff != "" {
		t.Errorf("scenario mismatch (-want +got):\n%s", diff)
	}
}

// TestScenarioProperties checks what every trace must satisfy, on several
// seeds.
func TestScenarioProperties(t *testing.T) {
	eu := map[string]bool{}
	for _, seed := range []uint64{1, 2, 3} {
		s := newScenario(t, Options{Seed: seed, Jobs: 300})
		again := newScenario(t, Options{Seed: seed, Jobs: 300})
		if diff := cmp.Diff(s.Jobs, again.Jobs); diff != "" {
			t.Errorf("seed %d: the same seed drew another trace (-first +second):\n%s", seed, diff)
		}
		var residency, limited, noSlack int
		for _, j := range s.Jobs {
			slack := j.Deadline.Sub(j.Arrival) - j.Duration
			switch {
			case j.Duration < minDuration || j.Duration > maxDuration:
				t.Errorf("seed %d, %s: duration %s outside [%s, %s]", seed, j.Name, j.Duration, minDuration, maxDuration)
			case slack < 0 || slack > maxSlack:
				t.Errorf("seed %d, %s: slack %s outside [0, %s]", seed, j.Name, slack, maxSlack)
			case j.Arrival.Before(s.From) || !j.Arrival.Before(s.To):
				t.Errorf("seed %d, %s: arrival %s outside %d", seed, j.Name, j.Arrival, s.Year)
			case len(j.Candidates) == 0 || carbon.RegionKey(j.Candidates[0]) != j.Origin:
				t.Errorf("seed %d, %s: candidates do not start with the origin %s", seed, j.Name, j.Origin)
			}
			if slack == 0 {
				noSlack++
			}
			for _, c := range j.Candidates {
				if j.MaxLatencyMs > 0 && c.LatencyMs > j.MaxLatencyMs {
					t.Errorf("seed %d, %s: candidate %s is %g ms away, above the limit %g", seed, j.Name, carbon.RegionKey(c), c.LatencyMs, j.MaxLatencyMs)
				}
				if j.Residency == "EU" {
					eu[c.Zone] = true
				}
			}
			if j.MaxLatencyMs > 0 && len(j.Candidates) < len(s.Regions) {
				limited++
			}
			if j.Residency != "" {
				residency++
			}
		}
		if residency == 0 || limited == 0 || noSlack == 0 {
			t.Errorf("seed %d: %d jobs with residency, %d ruled out by latency, %d without slack; want some of each", seed, residency, limited, noSlack)
		}
		// Carbon-agnostic fits the declared capacities.
		pl, err := Agnostic{}.Place(t.Context(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.measure(AgnosticPolicy, pl)
		if err != nil {
			t.Fatal(err)
		}
		if m.CapacityViolations != 0 || m.PeakUtilisation > 1/s.Headroom+1e-9 {
			t.Errorf("seed %d: carbon-agnostic has %d region-hours over capacity and peaks at %.2f, want none and at most 1/headroom", seed, m.CapacityViolations, m.PeakUtilisation)
		}
	}
	zones := make([]string, 0, len(eu))
	for z := range eu {
		zones = append(zones, z)
	}
	slices.Sort(zones)
	if diff := cmp.Diff([]string{"DE", "ES"}, zones); diff != "" {
		t.Errorf("zones of EU-resident jobs' candidates mismatch (-want +got):\n%s", diff)
	}
}

func TestOptionsInvalid(t *testing.T) {
	for _, opts := range []Options{{Jobs: -1}, {Headroom: 0.5}, {Year: 1990}} {
		engine, err := policy.New(t.Context(), policy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		data, err := offline.Default()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(t.Context(), engine, data, opts); err == nil {
			t.Errorf("New(%+v) error = nil, want an error", opts)
		}
		_ = engine.Close()
	}
}
