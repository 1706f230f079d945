package multiclusterjob

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/workload"
)

var emissionsGrams = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "meridian_multiclusterjob_emissions_grams_total",
	Help: "Emissions (gCO2e) of completed MultiClusterJobs by kind: realised (every member's parallel pods from the job's start to its completion, at the measured intensity of the member's grid zone), expected and baseline (the carbon scheduler's forecast for the planned start and for starting at once, jobs with spec.carbonShift). Counted once per job, when it is accounted.",
}, []string{"kind"})

func init() {
	metrics.Registry.MustRegister(emissionsGrams)
}

// jobAccounting is what a pass accounted, counted once the status holding
// it is written.
type jobAccounting struct {
	realised, expected, baseline float64
	hasExpected                  bool
	// message explains the figure in the EmissionsAccounted event.
	message string
}

func (a *jobAccounting) count() {
	emissionsGrams.WithLabelValues("realised").Add(a.realised)
	if a.hasExpected {
		emissionsGrams.WithLabelValues("expected").Add(a.expected)
		emissionsGrams.WithLabelValues("baseline").Add(a.baseline)
	}
}

// account records a completed job's realised emissions when they are due
// (decide.EmissionsDue and decide.EmissionsRecord, the CloudVM controller's
// timing): for each member whose Job ran parallel pods, the pods' power in
// the energy model from status.startTime to status.completionTime, at the
// intensity of the member Cluster's spec.gridZone. Members without a grid
// zone are left out, and the basis says so. It returns when to look again
// and what to count once the status is written.
func (r *Reconciler) account(ctx context.Context, mcj *multiclusterv1alpha1.MultiClusterJob, now time.Time) (time.Duration, *jobAccounting, error) {
	st := &mcj.Status
	if r.Intensities == nil {
		return 0, nil, nil
	}
	complete := meta.IsStatusConditionTrue(st.Conditions, multiclusterv1alpha1.ConditionComplete) && st.StartTime != nil && st.CompletionTime != nil
	recorded := st.Emissions != nil && st.Emissions.AccountedTime != nil
	// A job still running has no completionTime yet; EmissionsDue does not
	// read the end of an incomplete job.
	var end time.Time
	if st.CompletionTime != nil {
		end = st.CompletionTime.Time
	}
	due, wait := decide.EmissionsDue(complete, recorded, end, now, r.EmissionsTiming)
	if !due {
		return wait, nil, nil
	}
	w, err := workload.New(workload.Key(Kind, mcj.Namespace, mcj.Name), placement.KindJob, ptr.Deref(mcj.Spec.Parallelism, 1), &mcj.Spec.Template.Spec, mcj.Spec.Placement)
	if err != nil {
		return 0, nil, err
	}
	start, end := st.StartTime.Time, st.CompletionTime.Time
	var total carbon.Realised
	total.Kinds = map[carbon.Kind]int{}
	var basis []string
	complete = true
	for _, c := range st.Clusters {
		if c.Replicas <= 0 {
			continue
		}
		cluster := &multiclusterv1alpha1.Cluster{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: string(c.Name)}, cluster); err != nil {
			return 0, nil, fmt.Errorf("failed to read Cluster %q: %w", c.Name, err)
		}
		zone := cluster.Spec.GridZone
		if zone == "" {
			basis = append(basis, fmt.Sprintf("%s: no spec.gridZone, not counted", c.Name))
			complete = false
			continue
		}
		watts := r.Energy.Watts("", w.PodRequests.MilliCPU*int64(c.Replicas), w.PodRequests.Memory*int64(c.Replicas))
		points, err := r.Intensities.History(ctx, zone, start, end)
		var got carbon.Realised
		if err == nil {
			got, err = carbon.Account(points, zone, watts, start, end)
		}
		if err != nil {
			if !now.Before(end.Add(r.EmissionsTiming.GiveUp)) {
				basis = append(basis, fmt.Sprintf("%s (%s): %v", c.Name, zone, err))
				complete = false
				continue
			}
			r.event(mcj, corev1.EventTypeWarning, "EmissionsUnknown", "member %s (grid zone %s): %v; trying again in %s", c.Name, zone, err, r.EmissionsTiming.Retry)
			return r.EmissionsTiming.Retry, nil, nil
		}
		if record, again := decide.EmissionsRecord(got, end, now, r.EmissionsTiming); !record {
			return again, nil, nil
		}
		complete = complete && got.Complete()
		total.Grams += got.Grams
		total.KWh += got.KWh
		basis = append(basis, fmt.Sprintf("%s (%s, %d pods, %.2f W): %s", c.Name, zone, c.Replicas, watts, got))
	}
	if st.Emissions == nil {
		st.Emissions = &multiclusterv1alpha1.JobEmissions{}
	}
	e := st.Emissions
	realised, energy := carbon.Grams(total.Grams), carbon.Decimal(total.KWh, 4)
	e.RealisedGrams, e.EnergyKWh = &realised, &energy
	e.Basis = conditions.Truncate(strings.Join(basis, "; "), 1024)
	e.Measured = complete
	e.AccountedTime = &metav1.Time{Time: now}
	a := &jobAccounting{realised: total.Grams}
	msg := fmt.Sprintf("realised %s gCO2e over %s (%s)", carbon.FormatGrams(total.Grams), end.Sub(start).Round(time.Second), e.Basis)
	if e.ExpectedGrams != nil && e.BaselineGrams != nil {
		expected, baseline := e.ExpectedGrams.AsApproximateFloat64(), e.BaselineGrams.AsApproximateFloat64()
		a.expected, a.baseline, a.hasExpected = expected, baseline, true
		msg += fmt.Sprintf("; forecast %s g at the planned start, %s g at once", carbon.FormatGrams(expected), carbon.FormatGrams(baseline))
	}
	a.message = msg
	return 0, a, nil
}
