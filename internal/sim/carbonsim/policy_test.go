package carbonsim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPolicies(t *testing.T) {
	zones := map[string][]float64{"AA": {300, 300, 50, 300, 300, 300}, "BB": flat(6, 200)}
	oneJob := job{arrival: 0, duration: 60, slack: 180, vcpu: 1, candidates: []string{"a", "b"}}
	policies := []Policy{
		Agnostic{},
		RoundRobin{},
		&Product{PolicyName: TemporalPolicy, Variant: TemporalOnly, Perfect: true},
		&Product{PolicyName: SpatialPolicy, Variant: SpatialOnly, Perfect: true},
		&Product{PolicyName: MeridianPerfectPolicy, Perfect: true},
	}
	tests := []struct {
		name    string
		regions []region
		jobs    []job
		// want are the placements per policy, in the order of policies.
		want map[string]string
		// wantMisses are the deadline misses per policy (none when absent).
		wantMisses map[string]int
	}{
		{
			name:    "one job with three hours of slack",
			regions: []region{{name: "a", zone: "AA", milli: 4000}, {name: "b", zone: "BB", milli: 4000}},
			jobs:    []job{oneJob},
			want: map[string]string{
				AgnosticPolicy:        "a@+0",
				RoundRobinPolicy:      "a@+0",
				TemporalPolicy:        "a@+120",
				SpatialPolicy:         "b@+0",
				MeridianPerfectPolicy: "a@+120",
			},
		},
		{
			name:    "room for one: the second job goes where the capacity allows",
			regions: []region{{name: "a", zone: "AA", milli: 1000}, {name: "b", zone: "BB", milli: 4000}},
			jobs:    []job{oneJob, oneJob},
			want: map[string]string{
				AgnosticPolicy:   "a@+0 a@+0",
				RoundRobinPolicy: "a@+0 b@+0",
				// Hour 2 is full; every other hour of a emits 300 g, a tie
				// the earliest start wins.
				TemporalPolicy:        "a@+120 a@+0",
				SpatialPolicy:         "b@+0 b@+0",
				MeridianPerfectPolicy: "a@+120 b@+0",
			},
		},
		{
			name:    "no room before the deadline: the job is unplaced and missed",
			regions: []region{{name: "a", zone: "AA", milli: 1000}},
			jobs: []job{
				{arrival: 0, duration: 60, vcpu: 1, candidates: []string{"a"}},
				{arrival: 0, duration: 60, vcpu: 1, candidates: []string{"a"}},
			},
			want: map[string]string{
				AgnosticPolicy:        "a@+0 a@+0",
				RoundRobinPolicy:      "a@+0 unplaced",
				TemporalPolicy:        "a@+0 unplaced",
				SpatialPolicy:         "a@+0 unplaced",
				MeridianPerfectPolicy: "a@+0 unplaced",
			},
			wantMisses: map[string]int{RoundRobinPolicy: 1, TemporalPolicy: 1, SpatialPolicy: 1, MeridianPerfectPolicy: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := handScenario(t, zones, tc.regions, tc.jobs)
			got := map[string]string{}
			misses := map[string]int{}
			for _, p := range policies {
				pl, err := p.Place(t.Context(), s, nil)
				if err != nil {
					t.Fatalf("%s: Place() error = %v", p.Name(), err)
				}
				got[p.Name()] = wheres(pl)
				m, err := s.measure(p.Name(), pl)
				if err != nil {
					t.Fatalf("%s: measure() error = %v", p.Name(), err)
				}
				if m.DeadlineMisses > 0 {
					misses[p.Name()] = m.DeadlineMisses
				}
				// Only carbon-agnostic ignores the capacities.
				if p.Name() != AgnosticPolicy && m.CapacityViolations != 0 {
					t.Errorf("%s: %d region-hours over capacity, want none", p.Name(), m.CapacityViolations)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements mismatch (-want +got):\n%s", diff)
			}
			if tc.wantMisses == nil {
				tc.wantMisses = map[string]int{}
			}
			if diff := cmp.Diff(tc.wantMisses, misses); diff != "" {
				t.Errorf("deadline misses mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	zones := map[string][]float64{"AA": flat(4, 100), "BB": flat(4, 300)}
	regions := []region{{name: "a", zone: "AA", milli: 1000}, {name: "b", zone: "BB"}}
	jobs := []job{
		{arrival: 0, duration: 60, slack: 60, vcpu: 1, candidates: []string{"a", "b"}},
		{arrival: 30, duration: 60, slack: 0, vcpu: 1, candidates: []string{"a", "b"}},
	}
	type figures struct {
		Grams                                   float64
		Misses, Unplaced, Violations, FullHours int
		LargestRegion                           string
	}
	tests := []struct {
		name      string
		placement func(s *Scenario) []Placement
		want      figures
		wantErr   bool
	}{
		{
			name: "on time, within capacity",
			placement: func(s *Scenario) []Placement {
				return []Placement{{Candidate: s.Jobs[0].Candidates[0], Start: t0}, {Candidate: s.Jobs[1].Candidates[1], Start: s.Jobs[1].Arrival}}
			},
			want: figures{Grams: 400, FullHours: 1, LargestRegion: "azure/a"},
		},
		{
			name: "both in a share hour 0: one region-hour over capacity",
			placement: func(s *Scenario) []Placement {
				return []Placement{{Candidate: s.Jobs[0].Candidates[0], Start: t0}, {Candidate: s.Jobs[1].Candidates[0], Start: s.Jobs[1].Arrival}}
			},
			want: figures{Grams: 200, Violations: 1, FullHours: 2, LargestRegion: "azure/a"},
		},
		{
			name: "a start after the deadline is a miss",
			placement: func(s *Scenario) []Placement {
				return []Placement{{Candidate: s.Jobs[0].Candidates[1], Start: t0.Add(90 * 60e9)}, {Candidate: s.Jobs[1].Candidates[1], Start: s.Jobs[1].Arrival}}
			},
			want: figures{Grams: 600, Misses: 1, LargestRegion: "azure/b"},
		},
		{
			name: "an unplaced job is a miss, counted at its origin but holding no capacity",
			placement: func(s *Scenario) []Placement {
				return []Placement{{Candidate: s.Jobs[0].Candidates[0], Start: t0}, {Candidate: s.Jobs[1].Candidates[0], Start: s.Jobs[1].Arrival, Unplaced: true}}
			},
			want: figures{Grams: 200, Misses: 1, Unplaced: 1, FullHours: 1, LargestRegion: "azure/a"},
		},
		{
			name: "a region that is not a candidate is refused",
			placement: func(s *Scenario) []Placement {
				c := s.Jobs[0].Candidates[0]
				c.Region = "elsewhere"
				return []Placement{{Candidate: c, Start: t0}, {Candidate: s.Jobs[1].Candidates[0], Start: s.Jobs[1].Arrival}}
			},
			wantErr: true,
		},
		{
			name: "a start before the arrival is refused",
			placement: func(s *Scenario) []Placement {
				return []Placement{{Candidate: s.Jobs[0].Candidates[0], Start: t0}, {Candidate: s.Jobs[1].Candidates[0], Start: t0}}
			},
			wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := handScenario(t, zones, regions, jobs)
			m, err := s.measure("p", tc.placement(s))
			if (err != nil) != tc.wantErr {
				t.Fatalf("measure() error = %v, want error %t", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			got := figures{Grams: m.Grams, Misses: m.DeadlineMisses, Unplaced: m.Unplaced, Violations: m.CapacityViolations, FullHours: m.FullHours, LargestRegion: m.LargestRegion}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("measure() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
