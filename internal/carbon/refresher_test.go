package carbon_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// notifying is a Planner that reports each snapshot it receives.
type notifying struct {
	*carbon.Planner
	set chan struct{}
}

func (n *notifying) SetIntensities(in *carbon.Intensities) {
	n.Planner.SetIntensities(in)
	n.set <- struct{}{}
}

func gramsOf(in *carbon.Intensities, zone string) []float64 {
	var out []float64
	for _, p := range in.Points(zone) {
		out = append(out, p.GramsPerKWh)
	}
	return out
}

func TestRefresherRefresh(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0.Add(20 * time.Minute))
	mem := carbon.NewMemory("memory", clk)
	mem.Add(carbon.Point{Zone: "NL", Time: t0, GramsPerKWh: 250})
	mem.SetForecast("NL", []carbon.Point{{Time: t0.Add(time.Hour), GramsPerKWh: 200}, {Time: t0.Add(2 * time.Hour), GramsPerKWh: 150}})
	mem.SetForecast("DE", []carbon.Point{{Time: t0, GramsPerKWh: 400}, {Time: t0.Add(time.Hour), GramsPerKWh: 380}})
	planner := carbon.NewPlanner(carbon.PlannerOptions{})
	r := &carbon.Refresher{Source: mem, Zones: []string{"DE", "NL", "XX"}, Target: planner, Clock: clk, Horizon: 3 * time.Hour}
	if r.Ready(nil) == nil {
		t.Errorf("Ready() before the first refresh passed; a replica would admit CloudVMs without intensities")
	}

	err := r.Refresh(t.Context())
	if err := r.Ready(nil); err != nil {
		t.Errorf("Ready() after the first refresh: %v", err)
	}
	if !errors.Is(err, carbon.ErrUnknownZone) {
		t.Errorf("Refresh() error = %v, want the unknown zone XX", err)
	}
	want := map[string][]float64{"DE": {400, 380}, "NL": {250, 200, 150}}
	got := map[string][]float64{}
	for _, z := range planner.Intensities().Zones() {
		got[z] = gramsOf(planner.Intensities(), z)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("intensities mismatch (-want +got):\n%s", diff)
	}

	// An outage: the zones keep their hours from the current one on.
	clk.Step(time.Hour)
	mem.SetError(errors.New("service down"))
	if err := r.Refresh(t.Context()); err == nil {
		t.Errorf("Refresh() during an outage: want an error")
	}
	want = map[string][]float64{"DE": {380}, "NL": {200, 150}}
	got = map[string][]float64{}
	for _, z := range planner.Intensities().Zones() {
		got[z] = gramsOf(planner.Intensities(), z)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("intensities kept during the outage mismatch (-want +got):\n%s", diff)
	}
}

func TestRefresherStart(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	mem := carbon.NewMemory("memory", clk)
	mem.SetForecast("NL", []carbon.Point{{Time: t0, GramsPerKWh: 250}})
	target := &notifying{Planner: carbon.NewPlanner(carbon.PlannerOptions{}), set: make(chan struct{}, 1)}
	r := &carbon.Refresher{Source: mem, Zones: []string{"NL"}, Target: target, Clock: clk, Interval: 10 * time.Minute}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()

	<-target.set
	if diff := cmp.Diff([]float64{250}, gramsOf(target.Intensities(), "NL")); diff != "" {
		t.Errorf("first snapshot mismatch (-want +got):\n%s", diff)
	}
	mem.SetForecast("NL", []carbon.Point{{Time: t0, GramsPerKWh: 90}})
	// Step until the ticker, created by Start, fires.
	for stepped := false; !stepped; {
		select {
		case <-target.set:
			stepped = true
		default:
			if clk.HasWaiters() {
				clk.Step(10 * time.Minute)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if diff := cmp.Diff([]float64{90}, gramsOf(target.Intensities(), "NL")); diff != "" {
		t.Errorf("refreshed snapshot mismatch (-want +got):\n%s", diff)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start() = %v, want nil once the context ends", err)
	}
	if r.NeedLeaderElection() {
		t.Errorf("NeedLeaderElection() = true, want every replica to refresh")
	}
}

func TestRefresherStartNeedsSourceAndTarget(t *testing.T) {
	tests := []struct {
		name string
		r    *carbon.Refresher
	}{
		{name: "no source", r: &carbon.Refresher{Target: carbon.NewPlanner(carbon.PlannerOptions{})}},
		{name: "no target", r: &carbon.Refresher{Source: carbon.NewMemory("memory", clocktesting.NewFakeClock(t0))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.r.Start(t.Context()); err == nil {
				t.Errorf("Start() = nil, want an error")
			}
		})
	}
}
