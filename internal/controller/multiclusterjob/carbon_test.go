package multiclusterjob_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/controller"
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
		return cmp.Diff([]any{want.UTC(), multiclusterv1alpha1.ReasonWaitingForGreenerStart, int32(0)},
			[]any{got.Status.PlannedStart.UTC(), c.Reason, got.Status.UnplacedReplicas})
	})
	// It keeps waiting: no member Job is written.
	time.Sleep(2 * time.Second)
	if diff := cmp.Diff(map[string]string{}, memberJobs(t, clients)); diff != "" {
		t.Errorf("member Jobs while the job waits (-want +got):\n%s", diff)
	}
}
