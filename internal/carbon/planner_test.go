package carbon_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
)

func TestPlanner(t *testing.T) {
	a, b := cand("a", "AA", 0.1), cand("b", "BB", 0.2)
	in := carbon.NewIntensities(concat(hours("AA", 100, 100, 100), hours("BB", 300, 300, 300)))
	req := func(name string) carbon.Request {
		return carbon.Request{Name: name, CPUMilli: 2000, Duration: time.Hour, Now: t0, Candidates: []carbon.Candidate{a, b}}
	}
	type step struct {
		op   string // schedule, preview, release
		req  carbon.Request
		want string // region, or "error"
	}
	tests := []struct {
		name  string
		steps []step
		// wantReserved are the names and regions left in the ledger.
		wantReserved []string
	}{
		{
			name: "one after another: the second goes where there is room",
			steps: []step{
				{op: "schedule", req: req("ns/one"), want: "a"},
				{op: "schedule", req: req("ns/two"), want: "b"},
				{op: "schedule", req: req("ns/three"), want: "error"},
			},
			wantReserved: []string{"ns/one azure/a", "ns/two azure/b"},
		},
		{
			name: "planned again, a run does not count against itself",
			steps: []step{
				{op: "schedule", req: req("ns/one"), want: "a"},
				{op: "schedule", req: req("ns/one"), want: "a"},
			},
			wantReserved: []string{"ns/one azure/a"},
		},
		{
			name: "a failed replan keeps the reservation",
			steps: []step{
				{op: "schedule", req: req("ns/one"), want: "a"},
				{op: "schedule", req: func() carbon.Request { r := req("ns/one"); r.Deadline = t0.Add(time.Minute); return r }(), want: "error"},
			},
			wantReserved: []string{"ns/one azure/a"},
		},
		{
			name: "a preview reserves nothing",
			steps: []step{
				{op: "preview", req: req("ns/one"), want: "a"},
				{op: "schedule", req: req("ns/two"), want: "a"},
			},
			wantReserved: []string{"ns/two azure/a"},
		},
		{
			name: "a release frees the region",
			steps: []step{
				{op: "schedule", req: req("ns/one"), want: "a"},
				{op: "release", req: req("ns/one")},
				{op: "schedule", req: req("ns/two"), want: "a"},
			},
			wantReserved: []string{"ns/two azure/a"},
		},
		{
			name: "runs without a name hold their own reservations",
			steps: []step{
				{op: "schedule", req: req(""), want: "a"},
				{op: "schedule", req: req(""), want: "b"},
			},
			wantReserved: []string{"unnamed-1 azure/a", "unnamed-2 azure/b"},
		},
		{
			name: "a previewer reserves nothing",
			steps: []step{
				{op: "previewer", req: req("ns/one"), want: "a"},
				{op: "previewer", req: req("ns/two"), want: "a"},
			},
		},
		{
			name: "a run that ended within the current hour still holds that hour",
			steps: []step{
				{op: "schedule", req: func() carbon.Request { r := req("ns/one"); r.Duration = 15 * time.Minute; return r }(), want: "a"},
				{op: "schedule", req: func() carbon.Request { r := req("ns/two"); r.Now = t0.Add(30 * time.Minute); return r }(), want: "b"},
			},
			wantReserved: []string{"ns/one azure/a", "ns/two azure/b"},
		},
		{
			name: "ended runs are pruned",
			steps: []step{
				{op: "schedule", req: req("ns/one"), want: "a"},
				{op: "schedule", req: func() carbon.Request { r := req("ns/two"); r.Now = t0.Add(time.Hour); return r }(), want: "a"},
			},
			wantReserved: []string{"ns/two azure/a"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			capacity := carbon.NewCapacity().Set("azure/a", 2000).Set("azure/b", 2000)
			p := carbon.NewPlanner(carbon.PlannerOptions{Capacity: capacity, Intensities: in})
			for i, st := range tc.steps {
				var plan carbon.Plan
				var err error
				switch st.op {
				case "schedule":
					plan, err = p.Schedule(st.req)
				case "preview":
					plan, err = p.Preview(st.req)
				case "previewer":
					plan, err = p.Previewer().Schedule(st.req)
				case "release":
					p.Release(st.req.Name)
					continue
				}
				got := plan.Candidate.Region
				if err != nil {
					got = "error"
				}
				if got != st.want {
					t.Errorf("step %d (%s %s) = %q (err %v), want %q", i, st.op, st.req.Name, got, err, st.want)
				}
			}
			var got []string
			for _, r := range p.Reservations() {
				got = append(got, r.Name+" "+r.Region)
			}
			if diff := cmp.Diff(tc.wantReserved, got); diff != "" {
				t.Errorf("reservations mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlannerWithoutIntensities(t *testing.T) {
	p := carbon.NewPlanner(carbon.PlannerOptions{})
	req := carbon.Request{Name: "ns/vm", CPUMilli: 1000, Duration: time.Hour, Now: t0, Candidates: []carbon.Candidate{cand("a", "AA", 0.3), cand("b", "BB", 0.1)}}
	got, err := p.Schedule(req)
	if err != nil {
		t.Fatalf("Schedule() error = %v", err)
	}
	want, err := carbon.NoForecast{}.Schedule(req)
	if err != nil {
		t.Fatalf("NoForecast.Schedule() error = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Schedule() without intensities differs from NoForecast (-want +got):\n%s", diff)
	}
}

// TestPlannerConcurrent schedules from many goroutines while the
// intensities are swapped, for the race detector; capacity holds.
func TestPlannerConcurrent(t *testing.T) {
	capacity := carbon.NewCapacity().Set("azure/a", 10000).Set("azure/b", 10000)
	p := carbon.NewPlanner(carbon.PlannerOptions{Capacity: capacity})
	cands := []carbon.Candidate{cand("a", "AA", 0.1), cand("b", "BB", 0.2)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var planned int
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if i%3 == 0 {
					p.SetIntensities(carbon.NewIntensities(concat(hours("AA", float64(100+g)), hours("BB", float64(100+i)))))
				}
				_, err := p.Schedule(carbon.Request{Name: fmt.Sprintf("ns/%d-%d", g, i), CPUMilli: 1000, Duration: time.Hour, Now: t0, Candidates: cands})
				switch {
				case err == nil:
					mu.Lock()
					planned++
					mu.Unlock()
				case !errors.Is(err, carbon.ErrNoCapacity):
					t.Errorf("Schedule() error = %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if planned != 20 {
		t.Errorf("planned %d runs of 1 vCPU into 20 vCPU, want 20", planned)
	}
}

// TestPlannerSpreadsTies plans identical runs one after another into
// equally green regions without declared capacity: they alternate instead of
// piling into the first.
func TestPlannerSpreadsTies(t *testing.T) {
	in := carbon.NewIntensities(concat(hours("AA", 100, 100), hours("BB", 100.4, 100.4), hours("CC", 150, 150)))
	p := carbon.NewPlanner(carbon.PlannerOptions{Intensities: in})
	cands := []carbon.Candidate{cand("a", "AA", 0.1), cand("b", "BB", 0.1), cand("c", "CC", 0.1)}
	var got []string
	for i := range 6 {
		plan, err := p.Schedule(carbon.Request{Name: fmt.Sprintf("ns/run-%d", i), CPUMilli: 1000, Duration: time.Hour, Now: t0, Candidates: cands})
		if err != nil {
			t.Fatalf("Schedule() error = %v", err)
		}
		got = append(got, plan.Candidate.Region)
	}
	if diff := cmp.Diff([]string{"a", "b", "a", "b", "a", "b"}, got); diff != "" {
		t.Errorf("regions mismatch (-want +got):\n%s", diff)
	}
}
