package multiclusterjob_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
