package webhook

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
	"github.com/meridian-dev/meridian/internal/carbon/sources"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// replica is what one meridian controller process holds for admissions: a
// carbon Planner whose intensities a Refresher set, and the LedgerSync that
// fills its ledger from a cache of its own.
type replica struct {
	planner *carbon.Planner
	ledger  *LedgerSync
}

// current is the replica the webhook plans with; swapping it is a restart
// of the controller.
type current struct{ p atomic.Pointer[replica] }

var _ Reserver = &current{}

func (c *current) Schedule(req carbon.Request) (carbon.Plan, error) {
	return c.p.Load().planner.Schedule(req)
}
func (c *current) Previewer() carbon.Scheduler        { return c.p.Load().planner.Previewer() }
func (c *current) Reserve(r carbon.Reservation)       { c.p.Load().planner.Reserve(r) }
func (c *current) Release(name string) bool           { return c.p.Load().planner.Release(name) }
func (c *current) Reservations() []carbon.Reservation { return c.p.Load().planner.Reservations() }
func (c *current) Ready(ctx context.Context) error    { return c.p.Load().ledger.Wait(ctx) }
func (c *current) ledger() *LedgerSync                { return c.p.Load().ledger }
func (c *current) swap(r *replica)                    { c.p.Store(r) }

// newReplica builds a Planner with capacity whose intensities are read
// once from src for zones at the clock's time, and its LedgerSync (not yet
// started).
func newReplica(t *testing.T, src carbon.Source, zones []string, capacity *carbon.Capacity, clk *clocktesting.FakeClock) *replica {
	t.Helper()
	p := carbon.NewPlanner(carbon.PlannerOptions{Capacity: capacity})
	r := &carbon.Refresher{Source: src, Zones: zones, Target: p, Clock: clk}
	if err := r.Refresh(t.Context()); err != nil {
		t.Fatalf("failed to read the intensities: %v", err)
	}
	return &replica{planner: p, ledger: &LedgerSync{Ledger: p, Now: clk.Now, WaitTimeout: 200 * time.Millisecond}}
}

// startLedger starts the replica's LedgerSync on a cache of its own, as the
// manager does, until t ends, and waits until it has rebuilt the ledger.
func startLedger(t *testing.T, cfg *rest.Config, r *replica) {
	t.Helper()
	c, err := cache.New(cfg, cache.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { _ = c.Start(ctx); done <- struct{}{} }()
	r.ledger.Cache = c
	go func() {
		if err := r.ledger.Start(ctx); err != nil {
			t.Errorf("carbon ledger sync: %v", err)
		}
		done <- struct{}{}
	}()
	t.Cleanup(func() { cancel(); <-done; <-done })
	wait, stop := context.WithTimeout(t.Context(), 30*time.Second)
	defer stop()
	for r.ledger.Wait(wait) != nil {
		if wait.Err() != nil {
			t.Fatal("the carbon ledger was not rebuilt within 30 s")
		}
	}
}

// TestCarbonScheduler runs the webhook with the carbon scheduler as
// meridian controller wires it (a Planner with a zone capacity, its
// intensities from a Refresher, its ledger kept by a LedgerSync) behind a
// real API server.
func TestCarbonScheduler(t *testing.T) {
	engine := testPolicies(t)
	clk := clocktesting.NewFakeClock(now)
	hour := now.Truncate(time.Hour)

	// Norway's grid is dirty for three hours, then clean for two; the
	// Netherlands' is middling throughout.
	mem := carbon.NewMemory("memory", clk)
	for zone, grams := range map[string][]float64{"NO-NO1": {400, 400, 400, 40, 40, 400}, "NL": {300, 300, 300, 300, 300, 300}} {
		var pts []carbon.Point
		for h, g := range grams {
			pts = append(pts, carbon.Point{Zone: zone, Time: hour.Add(time.Duration(h) * time.Hour), GramsPerKWh: g})
		}
		mem.Add(pts[0])
		mem.SetForecast(zone, pts)
	}
	capCfg, err := carbon.ParseCapacityConfig([]byte("zones:\n  NO-NO1: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	regions, err := engine.RegionZones(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	capacity, err := capCfg.Capacity(regions)
	if err != nil {
		t.Fatal(err)
	}
	zones := []string{"NO-NO1", "NL"}

	sched := &current{}
	sched.swap(newReplica(t, mem, zones, capacity, clk))
	planner := Planner{Policies: engine, Scheduler: sched, Ready: sched.Ready}
	api := startAPIServer(t, NewCloudVMHandler(scheme.New(), planner, clk.Now))
	c := api.Client
	startLedger(t, api.Config, sched.p.Load())

	// Every VM: 2 vCPU for 2 h, to end by hour+5h.
	vm := func(name string, mutate ...func(*computev1alpha1.CloudVM)) *computev1alpha1.CloudVM {
		return testVM(name, append([]func(*computev1alpha1.CloudVM){func(vm *computev1alpha1.CloudVM) {
			vm.Spec.Deadline = &metav1.Time{Time: hour.Add(5 * time.Hour)}
		}}, mutate...)...)
	}
	type placed struct {
		Zone, Region, Source string
		Start                time.Time
	}
	create := func(t *testing.T, v *computev1alpha1.CloudVM, opts ...client.CreateOption) placed {
		t.Helper()
		if err := c.Create(t.Context(), v, opts...); err != nil {
			t.Fatalf("failed to create CloudVM %s: %v", v.Name, err)
		}
		if v.Spec.Schedule == nil {
			t.Fatalf("CloudVM %s has no spec.schedule", v.Name)
		}
		d := v.Spec.Schedule.Decision
		return placed{d.Zone, string(d.Provider) + "/" + d.Region, d.IntensitySource, d.Start.UTC()}
	}
	reserved := func() []string {
		var names []string
		for _, r := range sched.Reservations() {
			names = append(names, r.Name)
		}
		return names
	}
	waitReserved := func(t *testing.T, want []string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !slices.Equal(reserved(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("reservations %v, want %v", reserved(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	green := placed{"NO-NO1", "azure/norwayeast", "memory", hour.Add(3 * time.Hour)}

	t.Run("a dry run is decided and reserves nothing", func(t *testing.T) {
		got := create(t, vm("dry"), client.DryRunAll)
		if diff := cmp.Diff(green, got); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string(nil), reserved()); diff != "" {
			t.Errorf("reservations (-want +got):\n%s", diff)
		}
	})

	t.Run("a VM the API server refuses after admission gives its reservation back", func(t *testing.T) {
		// The webhook plans (and reserves) before the API server validates
		// the object; an invalid label makes it refuse the VM afterwards.
		bad := vm("refused", func(vm *computev1alpha1.CloudVM) { vm.Labels = map[string]string{"team": "not a valid label value!"} })
		if err := c.Create(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "metadata.labels") {
			t.Fatalf("creating CloudVM refused: got error %v, want a refusal of its label", err)
		}
		if diff := cmp.Diff([]string{"default/refused"}, reserved()); diff != "" {
			t.Fatalf("reservations after the refusal (-want +got):\n%s", diff)
		}
		// Unclaimed at two sweeps in a row: released.
		for range 2 {
			if err := sched.ledger().Sweep(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff([]string(nil), reserved()); diff != "" {
			t.Errorf("reservations after two sweeps (-want +got):\n%s", diff)
		}
	})

	t.Run("the cleanest zone and hour win, and the decision says where the numbers came from", func(t *testing.T) {
		v := vm("green-a")
		got := create(t, v)
		if diff := cmp.Diff(green, got); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
		d := v.Spec.Schedule.Decision
		// The fallback says that the regions of the other zones, which the
		// memory source does not know, were not compared.
		if d.ExpectedEmissionsGrams == nil || !strings.Contains(d.Reason, "norwayeast") || !strings.Contains(d.Fallback, "no forecast for") {
			t.Errorf("decision lacks its emissions, reason or fallback: %+v", d)
		}
		if diff := cmp.Diff([]string{"default/green-a"}, reserved()); diff != "" {
			t.Errorf("reservations (-want +got):\n%s", diff)
		}
	})

	t.Run("the zone's capacity is honoured: the next VM goes to the next cleanest zone", func(t *testing.T) {
		got := create(t, vm("green-b"))
		if got.Zone != "NL" {
			t.Errorf("green-b planned in zone %s (%s), want NL: NO-NO1 holds 2 vCPU, all taken by green-a", got.Zone, got.Region)
		}
		waitReserved(t, []string{"default/green-a", "default/green-b"})
	})

	t.Run("a deleted VM releases its reservation", func(t *testing.T) {
		if err := c.Delete(t.Context(), vm("green-a")); err != nil {
			t.Fatal(err)
		}
		waitReserved(t, []string{"default/green-b"})
		got := create(t, vm("green-c"))
		if diff := cmp.Diff(green, got); diff != "" {
			t.Errorf("decision after green-a was deleted (-want +got):\n%s", diff)
		}
	})

	t.Run("after a restart no admission plans before the ledger is rebuilt", func(t *testing.T) {
		before := sched.Reservations()
		sched.swap(newReplica(t, mem, zones, capacity, clk))
		err := c.Create(t.Context(), vm("too-early"))
		if err == nil || !strings.Contains(err.Error(), ErrLedgerNotSynced.Error()) {
			t.Fatalf("creating CloudVM too-early before the ledger is rebuilt: got error %v, want %q", err, ErrLedgerNotSynced)
		}
		startLedger(t, api.Config, sched.p.Load())
		if diff := cmp.Diff(before, sched.Reservations()); diff != "" {
			t.Errorf("ledger rebuilt from the stored CloudVMs (-before the restart +after):\n%s", diff)
		}
		// green-c holds NO-NO1's clean hours across the restart.
		if got := create(t, vm("green-d")); got.Zone != "NL" {
			t.Errorf("green-d planned in zone %s (%s) after the restart, want NL: green-c holds NO-NO1's capacity", got.Zone, got.Region)
		}
	})

	t.Run("the offline data alone, the controller's default, decide and say so", func(t *testing.T) {
		chain, err := sources.Build(sources.Config{}, func(string) string { return "" }, clk, nil)
		if err != nil {
			t.Fatal(err)
		}
		all, err := engine.GridZones(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		r := newReplica(t, chain, all, nil, clk)
		sched.swap(r)
		startLedger(t, api.Config, r)
		v := vm("offline")
		create(t, v)
		d := v.Spec.Schedule.Decision
		if d.IntensitySource != offline.Name || d.ExpectedEmissionsGrams == nil {
			t.Errorf("decision from the offline data: intensitySource %q, expected emissions %v; want %q and a figure (fallback %q)", d.IntensitySource, d.ExpectedEmissionsGrams, offline.Name, d.Fallback)
		}
	})
}

// refusing is a Reserver whose plans end after any deadline, so that the
// Planner refuses them after they were reserved.
type refusing struct {
	*carbon.Planner
}

func (r refusing) Schedule(req carbon.Request) (carbon.Plan, error) {
	p, err := r.Planner.Schedule(req)
	p.End = p.End.Add(1000 * time.Hour)
	p.Start = p.Start.Add(1000 * time.Hour)
	return p, err
}

// TestRefusedPlanGivesReservationBack: a plan the webhook refuses after the
// scheduler reserved it is released, and on UPDATE the stored decision's
// reservation comes back.
func TestRefusedPlanGivesReservationBack(t *testing.T) {
	engine := testPolicies(t)
	deadline := &metav1.Time{Time: now.Add(6 * time.Hour)}
	stored := testVM("stored", func(vm *computev1alpha1.CloudVM) { vm.Spec.Deadline = deadline })
	ok := Planner{Policies: engine, Scheduler: carbon.NewPlanner(carbon.PlannerOptions{})}
	res, err := ok.Admit(t.Context(), admissionv1.Create, stored, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	stored.Spec.Schedule = res.Schedule
	storedRes, _ := ReservationOf(stored, now)

	tests := []struct {
		name string
		old  *computev1alpha1.CloudVM
		want []carbon.Reservation
	}{
		{name: "CREATE", want: []carbon.Reservation{}},
		{name: "UPDATE", old: stored, want: []carbon.Reservation{storedRes}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cp := carbon.NewPlanner(carbon.PlannerOptions{})
			op := admissionv1.Create
			vm := testVM("stored", func(vm *computev1alpha1.CloudVM) { vm.Spec.Deadline = deadline })
			if tc.old != nil {
				cp.Reserve(storedRes)
				op = admissionv1.Update
				vm.Spec.CPU = stored.Spec.CPU.DeepCopy()
				vm.Spec.Duration.Duration = time.Hour
				vm.Spec.Schedule = stored.Spec.Schedule
			}
			p := Planner{Policies: engine, Scheduler: refusing{cp}}
			_, err := p.Admit(t.Context(), op, vm, tc.old, now)
			var d *Denial
			if !errors.As(err, &d) {
				t.Fatalf("Admit: got %v, want a denial", err)
			}
			if diff := cmp.Diff(tc.want, cp.Reservations()); diff != "" {
				t.Errorf("reservations after the denial (-want +got):\n%s", diff)
			}
		})
	}
}
