package carbonsim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestOracle(t *testing.T) {
	tests := []struct {
		name    string
		zones   map[string][]float64
		regions []region
		jobs    []job
		// want are the placements; wantGrams the schedule's emissions,
		// wantBound the bound (both known by hand), wantMethod how the
		// bound was found.
		want       string
		wantGrams  float64
		wantBound  float64
		wantMethod string
	}{
		{
			name:    "the greenest hour that ends by the deadline, not the greenest hour",
			zones:   map[string][]float64{"AA": {300, 200, 50, 300}},
			regions: []region{{name: "a", zone: "AA", milli: 4000}},
			jobs:    []job{{arrival: 0, duration: 60, slack: 60, vcpu: 1, candidates: []string{"a"}}},
			want:    "a@+60", wantGrams: 200, wantBound: 200, wantMethod: "simplex",
		},
		{
			name:    "a partial first hour counts for its fraction",
			zones:   map[string][]float64{"AA": {120, 300, 60, 300}},
			regions: []region{{name: "a", zone: "AA"}},
			// From +30: 30 min at 120 and 30 at 300 = 210; from +60: 300;
			// from +120: 60.
			jobs: []job{{arrival: 30, duration: 60, slack: 90, vcpu: 1, candidates: []string{"a"}}},
			want: "a@+120", wantGrams: 60, wantBound: 60, wantMethod: "simplex",
		},
		{
			name:    "room for one job in the green region: the other goes to the next",
			zones:   map[string][]float64{"AA": flat(3, 100), "BB": flat(3, 300)},
			regions: []region{{name: "a", zone: "AA", milli: 1000}, {name: "b", zone: "BB", milli: 4000}},
			jobs: []job{
				{arrival: 0, duration: 60, vcpu: 1, candidates: []string{"b", "a"}},
				{arrival: 0, duration: 60, vcpu: 1, candidates: []string{"b", "a"}},
			},
			want: "a@+0 b@+0", wantGrams: 400, wantBound: 400, wantMethod: "simplex",
		},
		{
			name:    "a job that touches an hour holds it: the second waits for the next hour",
			zones:   map[string][]float64{"AA": {100, 100, 100, 900}, "BB": flat(4, 500)},
			regions: []region{{name: "a", zone: "AA", milli: 1000}, {name: "b", zone: "BB", milli: 1000}},
			jobs: []job{
				{arrival: 0, duration: 15, slack: 45, vcpu: 1, candidates: []string{"a", "b"}},
				{arrival: 30, duration: 60, slack: 90, vcpu: 1, candidates: []string{"a", "b"}},
			},
			// job-0 emits 25 g wherever it starts in hour 0; job-1 from +60
			// or +120 emits 100 g, from +30 it would share hour 0.
			want: "a@+0 a@+60", wantGrams: 125, wantBound: 125, wantMethod: "simplex",
		},
		{
			name: "integral jobs: the LP bound is below the best schedule",
			// a holds 1.5 vCPU: the LP fills it (1.5 x 100 + 2.5 x 300 =
			// 900 g); whole jobs fit one 1-vCPU job (100 + 3 x 300 = 1000 g).
			zones:   map[string][]float64{"AA": flat(2, 100), "BB": flat(2, 300)},
			regions: []region{{name: "a", zone: "AA", milli: 1500}, {name: "b", zone: "BB", milli: 8000}},
			jobs: []job{
				{arrival: 0, duration: 60, vcpu: 2, candidates: []string{"b", "a"}},
				{arrival: 0, duration: 60, vcpu: 1, candidates: []string{"b", "a"}},
				{arrival: 0, duration: 60, vcpu: 1, candidates: []string{"b", "a"}},
			},
			want: "b@+0 a@+0 b@+0", wantGrams: 1000, wantBound: 900, wantMethod: "simplex",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := handScenario(t, tc.zones, tc.regions, tc.jobs)
			got, err := Oracle{}.Solve(t.Context(), s, nil)
			if err != nil {
				t.Fatalf("Solve() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, wheres(got.Placements)); diff != "" {
				t.Errorf("placements mismatch (-want +got):\n%s", diff)
			}
			type figures struct {
				Grams, Bound float64
				Method       string
			}
			if diff := cmp.Diff(figures{tc.wantGrams, tc.wantBound, tc.wantMethod}, figures{got.Grams, got.Bound, got.Method}, cmpopts.EquateApprox(1e-6, 1e-6)); diff != "" {
				t.Errorf("figures mismatch (-want +got):\n%s", diff)
			}
			// The schedule meets every deadline within every capacity.
			m, err := s.measure(OraclePolicy, got.Placements)
			if err != nil {
				t.Fatalf("measure() error = %v", err)
			}
			if m.DeadlineMisses != 0 || m.CapacityViolations != 0 {
				t.Errorf("oracle schedule: %d deadline misses, %d region-hours over capacity, want none", m.DeadlineMisses, m.CapacityViolations)
			}
		})
	}
}

// TestOracleLagrangianBound checks that without the simplex the Lagrangian
// bound still comes within 1 % of the LP's on a problem where capacity
// binds, and never above it.
func TestOracleLagrangianBound(t *testing.T) {
	zones := map[string][]float64{"AA": {100, 120, 80, 300, 300, 300}, "BB": {200, 150, 250, 200, 220, 210}}
	regions := []region{{name: "a", zone: "AA", milli: 2000}, {name: "b", zone: "BB", milli: 3000}}
	var jobs []job
	for i := range 6 {
		jobs = append(jobs, job{arrival: 10 * i, duration: 50 + 20*i, slack: 120, vcpu: int64(1 + i%2), candidates: []string{"b", "a"}})
	}
	s := handScenario(t, zones, regions, jobs)
	exact, err := Oracle{}.Solve(t.Context(), s, nil)
	if err != nil {
		t.Fatalf("Solve() error = %v", err)
	}
	if exact.Method != "simplex" {
		t.Fatalf("Method = %q, want simplex on a small problem", exact.Method)
	}
	lagrangian, err := Oracle{SimplexLimit: -1, Iterations: 2000}.Solve(t.Context(), s, nil)
	if err != nil {
		t.Fatalf("Solve() error = %v", err)
	}
	if lagrangian.Bound > exact.Bound*(1+1e-9) {
		t.Errorf("Lagrangian bound %.3f above the LP optimum %.3f: not a bound", lagrangian.Bound, exact.Bound)
	}
	if lagrangian.Bound < exact.Bound*0.99 {
		t.Errorf("Lagrangian bound %.3f more than 1%% below the LP optimum %.3f", lagrangian.Bound, exact.Bound)
	}
	if lagrangian.Grams < exact.Bound*(1-1e-9) {
		t.Errorf("schedule emits %.3f, below the LP optimum %.3f", lagrangian.Grams, exact.Bound)
	}
}
