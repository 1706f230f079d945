package cloudvm

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/decide"
)

var (
	emissionsGrams = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "meridian_cloudvm_emissions_grams_total",
		Help: "Emissions (gCO2e) of finished CloudVMs by kind: realised (the hours they ran), expected (the decision's forecast for its plan) and baseline (the decision's forecast for starting at once in the first eligible region). Counted once per CloudVM, when its emissions are accounted.",
	}, []string{"provider", "region", "kind"})
	energyKWh = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "meridian_cloudvm_energy_kwh_total",
		Help: "Energy (kWh) of finished CloudVMs in the energy model, counted when their emissions are accounted.",
	}, []string{"provider", "region"})
)

func init() {
	metrics.Registry.MustRegister(emissionsGrams, energyKWh)
}

// accounting is the emissions a pass recorded, counted in the metrics once
// the status holding them is written.
type accounting struct {
	provider, region             string
	realised, expected, baseline float64
	kwh                          float64
	hasExpected                  bool
}

// count adds the accounted figures to the metrics.
func (a *accounting) count() {
	if a == nil {
		return
	}
	emissionsGrams.WithLabelValues(a.provider, a.region, "realised").Add(a.realised)
	if a.hasExpected {
		emissionsGrams.WithLabelValues(a.provider, a.region, "expected").Add(a.expected)
		emissionsGrams.WithLabelValues(a.provider, a.region, "baseline").Add(a.baseline)
	}
	energyKWh.WithLabelValues(a.provider, a.region).Add(a.kwh)
}

// account accounts a completed VM's emissions when they are due: it reads
// the intensities of the hours the VM ran, and records them in
// status.emissions once every hour is measured or the wait is over. It
// returns when to look again (zero: never for this), the event that explains
// the figure, and what to count once the status is written.
func (r *Reconciler) account(ctx context.Context, vm *computev1alpha1.CloudVM, now time.Time) (time.Duration, []announcement, *accounting) {
	st := vm.Status
	completed := st.Phase == computev1alpha1.PhaseCompleted && st.StartedTime != nil && st.CompletedTime != nil && vm.Spec.Schedule != nil
	if r.Intensities == nil {
		return 0, nil, nil
	}
	due, wait := decide.EmissionsDue(completed, st.Emissions != nil, timeOf(st.CompletedTime), now, r.EmissionsTiming)
	if !due {
		return wait, nil, nil
	}
	d := vm.Spec.Schedule.Decision
	start, end := st.StartedTime.Time, st.CompletedTime.Time
	watts := r.Energy.Watts(string(d.Provider), vm.Spec.CPU.MilliValue(), vm.Spec.Memory.Value())
	points, err := r.Intensities.History(ctx, d.Zone, start, end)
	var realised carbon.Realised
	if err == nil {
		realised, err = carbon.Account(points, d.Zone, watts, start, end)
	}
	if err != nil {
		giveUp := !now.Before(end.Add(r.EmissionsTiming.GiveUp))
		msg := fmt.Sprintf("no carbon intensity of grid zone %q for the run %s to %s: %v", d.Zone, start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), err)
		if giveUp {
			return 0, []announcement{{warning: true, reason: computev1alpha1.ReasonEmissionsUnknown, action: "Account", message: msg + "; given up"}}, nil
		}
		return r.EmissionsTiming.Retry, []announcement{{warning: true, reason: computev1alpha1.ReasonEmissionsUnknown, action: "Account", message: msg + "; trying again in " + r.EmissionsTiming.Retry.String()}}, nil
	}
	record, again := decide.EmissionsRecord(realised, end, now, r.EmissionsTiming)
	if !record {
		return again, nil, nil
	}
	vm.Status.Emissions = &computev1alpha1.CloudVMEmissions{
		RealisedGrams: carbon.Grams(realised.Grams),
		EnergyKWh:     carbon.Decimal(realised.KWh, 4),
		Watts:         carbon.Decimal(watts, 2),
		Basis:         realised.String(),
		Measured:      realised.Complete(),
		AccountedTime: metav1.Time{Time: now},
	}
	a := &accounting{provider: string(d.Provider), region: d.Region, realised: realised.Grams, kwh: realised.KWh}
	msg := fmt.Sprintf("realised %s gCO2e: %s W for %s in grid zone %s (%s)", carbon.FormatGrams(realised.Grams), strconv.FormatFloat(watts, 'f', 2, 64), end.Sub(start).Round(time.Second), d.Zone, realised)
	if d.ExpectedEmissionsGrams != nil && d.BaselineEmissionsGrams != nil {
		expected, baseline := d.ExpectedEmissionsGrams.AsApproximateFloat64(), d.BaselineEmissionsGrams.AsApproximateFloat64()
		a.expected, a.baseline, a.hasExpected = expected, baseline, true
		msg += fmt.Sprintf("; forecast %s g for the plan (%s), %s g for starting at once in the first eligible region (%s)",
			carbon.FormatGrams(expected), percent(realised.Grams, expected), carbon.FormatGrams(baseline), percent(realised.Grams, baseline))
	}
	return 0, []announcement{{reason: computev1alpha1.ReasonEmissionsAccounted, action: "Account", message: msg}}, a
}

// percent says how got compares with ref: "12% less" or "3% more".
func percent(got, ref float64) string {
	if ref == 0 {
		return "no reference"
	}
	d := 100 * (got - ref) / ref
	if d < 0 {
		return fmt.Sprintf("realised %.0f%% less", -d)
	}
	return fmt.Sprintf("realised %.0f%% more", d)
}

func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}
