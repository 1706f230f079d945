package multiclusterjob_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestCarbonPolicyReadsTheSchedulersIntensities: the snapshot a job is
// placed on carries the intensities controller.Options.Carbon gives (as
// meridian controller gives the carbon scheduler's), so a Carbon job runs
// where the grid is cleanest, not in the first cluster by name.
func TestCarbonPolicyReadsTheSchedulersIntensities(t *testing.T) {
	var pts []carbon.Point
	hour := carbon.Hour(time.Now())
	for zone, g := range map[string]float64{"PL": 500, "DE": 300, "NO-NO1": 50} {
		for h := range 12 {
			pts = append(pts, carbon.Point{Zone: zone, Time: hour.Add(time.Duration(h-2) * time.Hour), GramsPerKWh: g, Source: "test"})
		}
	}
	intensities := carbon.NewIntensities(pts)
	mgmt, clients := setupWith(t, controller.Options{Carbon: func() placement.CarbonIntensity { return intensities }})
	mcj := render(2, 2)
	mcj.Spec.Placement.Locations = nil
	mcj.Spec.Placement.Substitution = nil
	mcj.Spec.Placement.Policy = multiclusterv1alpha1.Carbon
	if err := mgmt.Create(t.Context(), mcj); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cluster3": "2/2"}
	testenv.Eventually(t, 30*time.Second, "member Jobs", func() string { return cmp.Diff(want, memberJobs(t, clients)) })
}

// TestCarbonShiftWaitsForAGreenerStart: a job with spec.carbonShift whose
// clusters' grids are forecast to be cleaner in a few hours is not placed
// now: status.plannedStart holds the start the carbon scheduler chose, the
// Placed condition says the job waits, no member Job exists, and nothing
// counts as unplaced (which would buy cloud capacity).
func TestCarbonShiftWaitsForAGreenerStart(t *testing.T) {
	var pts []carbon.Point
	hour := carbon.Hour(time.Now())
	for zone, g := range map[string]float64{"PL": 500, "DE": 300, "NO-NO1": 300} {
		for h := range 24 {
			v := g
			if zone == "NO-NO1" && h >= 5 {
				v = 20
			}
			pts = append(pts, carbon.Point{Zone: zone, Time: hour.Add(time.Duration(h) * time.Hour), GramsPerKWh: v, Source: "test"})
		}
	}
	intensities := carbon.NewIntensities(pts)
	mgmt, clients := setupWith(t, controller.Options{Carbon: func() placement.CarbonIntensity { return intensities }})
	mcj := render(2, 2)
	mcj.Spec.Placement.Locations = nil
	mcj.Spec.Placement.Substitution = nil
	mcj.Spec.Placement.Policy = multiclusterv1alpha1.Carbon
	mcj.Spec.CarbonShift = &multiclusterv1alpha1.JobCarbonShift{
		Deadline:         metav1.NewTime(hour.Add(12 * time.Hour)),
		ExpectedDuration: metav1.Duration{Duration: 2 * time.Hour},
	}
	if err := mgmt.Create(t.Context(), mcj); err != nil {
		t.Fatal(err)
	}
	want := hour.Add(5 * time.Hour)
	testenv.Eventually(t, 30*time.Second, "status.plannedStart", func() string {
		got := &multiclusterv1alpha1.MultiClusterJob{}
		if err := mgmt.Get(t.Context(), client.ObjectKeyFromObject(mcj), got); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(got.Status.Conditions, multiclusterv1alpha1.ConditionPlaced)
		if got.Status.PlannedStart == nil || c == nil {
			return "no plannedStart or Placed condition yet"
		}
		if !strings.Contains(got.Status.PlannedStartReason, "cluster3") {
			return fmt.Sprintf("plannedStartReason %q does not name cluster3 (NO-NO1)", got.Status.PlannedStartReason)
		}
		// The forecast for the planned start (20 g/kWh) is well under the
		// one for starting at once (300 g/kWh at best).
		if e := got.Status.Emissions; e == nil || parse(e.ExpectedGrams) <= 0 || parse(e.ExpectedGrams)*10 > parse(e.BaselineGrams) {
			return fmt.Sprintf("status.emissions %+v: want a positive expectation a tenth or less of the baseline", e)
		}
		// Ready summarises: not ready, for the reason Placed gives.
		ready := meta.FindStatusCondition(got.Status.Conditions, multiclusterv1alpha1.ConditionReady)
		if ready == nil {
			return "no Ready condition"
		}
		return cmp.Diff([]any{want.UTC(), multiclusterv1alpha1.ReasonWaitingForGreenerStart, int32(0), metav1.ConditionFalse, multiclusterv1alpha1.ReasonWaitingForGreenerStart},
			[]any{got.Status.PlannedStart.UTC(), c.Reason, got.Status.UnplacedReplicas, ready.Status, ready.Reason})
	})
	// It keeps waiting: no member Job is written.
	time.Sleep(2 * time.Second)
	if diff := cmp.Diff(map[string]string{}, memberJobs(t, clients)); diff != "" {
		t.Errorf("member Jobs while the job waits (-want +got):\n%s", diff)
	}
}

// TestCompletedJobEmissionsAccounted: once a job completes, its emissions
// are accounted from the measured intensity of each member's grid zone over
// the hours it ran, with the carbon scheduler's energy model, into
// status.emissions and the Prometheus counter.
func TestCompletedJobEmissionsAccounted(t *testing.T) {
	hour := carbon.Hour(time.Now())
	grid := carbon.NewMemory("test-grid", clock.RealClock{})
	for zone, g := range map[string]float64{"PL": 600, "DE": 400, "NO-NO1": 30} {
		for h := -4; h < 2; h++ {
			grid.Add(carbon.Point{Zone: zone, Time: hour.Add(time.Duration(h) * time.Hour), GramsPerKWh: g})
		}
	}
	realised := map[string]string{"kind": "realised"}
	// The counter is the process's: earlier runs of the test count in it.
	before := testenv.Counter(t, "meridian_multiclusterjob_emissions_grams_total", realised)
	mgmt, clients := setupWith(t, controller.Options{CarbonHistory: grid, EmissionsTiming: decide.EmissionsTiming{Settle: time.Nanosecond}})
	mcj := render(12, 24)
	if err := mgmt.Create(t.Context(), mcj); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cluster1": "2/4", "cluster2": "2/4", "cluster3": "8/16"}
	testenv.Eventually(t, 30*time.Second, "member Jobs", func() string { return cmp.Diff(want, memberJobs(t, clients)) })
	// Every member Job ran from two hours ago to one hour ago.
	completeMemberJobs(t, clients, hour.Add(-2*time.Hour), hour.Add(-time.Hour))
	// One CPU a pod draws 2.12 W x PUE 1.135; for one hour, 2 pods at
	// 600 g/kWh, 2 at 400 and 8 at 30.
	wantGrams := (2*600 + 2*400 + 8*30) * 2.12 * 1.135 / 1000
	testenv.Eventually(t, 30*time.Second, "status.emissions", func() string {
		got := &multiclusterv1alpha1.MultiClusterJob{}
		if err := mgmt.Get(t.Context(), client.ObjectKeyFromObject(mcj), got); err != nil {
			return err.Error()
		}
		e := got.Status.Emissions
		if e == nil || e.AccountedTime == nil {
			return "not accounted yet"
		}
		return cmp.Diff([]any{carbon.FormatGrams(wantGrams), true}, []any{grams(e.RealisedGrams), e.Measured})
	})
	// The controller counts once its status write has returned, which the
	// status can be seen before: wait for the count.
	counted := func() string {
		if got := testenv.Counter(t, "meridian_multiclusterjob_emissions_grams_total", realised) - before; math.Abs(got-wantGrams) > 1e-9 {
			return fmt.Sprintf("meridian_multiclusterjob_emissions_grams_total{kind=realised} rose by %g, want %g", got, wantGrams)
		}
		return ""
	}
	testenv.Eventually(t, 10*time.Second, "the realised emissions counted", counted)
	// Counted once, however many passes saw the job complete. A pass
	// running on a stale copy may still be on its way: give it time.
	time.Sleep(2 * time.Second)
	if msg := counted(); msg != "" {
		t.Error(msg)
	}
}

// parse is q's value; -1 without one.
func parse(q *resource.Quantity) float64 {
	if q == nil {
		return -1
	}
	return q.AsApproximateFloat64()
}

// grams is q as carbon.FormatGrams writes it; "" without one.
func grams(q *resource.Quantity) string {
	if q == nil {
		return ""
	}
	return carbon.FormatGrams(q.AsApproximateFloat64())
}
