package cloudprovisioner

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
)

// errInvalidSpec is returned, wrapped with the fields at fault, for a
// CloudProvisioner whose spec cannot be acted on; it is reported in the
// Ready condition and not retried until the spec changes.
var errInvalidSpec = errors.New("invalid CloudProvisioner spec")

// The provisioner's settings that the CloudProvisioner does not expose.
const (
	// podsPerNode is what a cloud worker's kubelet admits (Kubernetes'
	// default max-pods).
	podsPerNode = 110
	// scaleDownUtilization is the Kubernetes cluster autoscaler's default.
	scaleDownUtilization = 0.5
	// defaultClusterDelay and defaultNodeDelay are the lead times the
	// predictive mode assumes until one provisioning has been measured
	// (seed 001 measured minutes on OpenStack).
	defaultClusterDelay = 5 * time.Minute
	defaultNodeDelay    = 2 * time.Minute
)

// pools are cp's node pools, one per flavor. The error names the field at
// fault and what would be valid.
func pools(cp *multiclusterv1alpha1.CloudProvisioner) ([]cloud.Pool, []provision.Flavor, error) {
	var errs field.ErrorList
	var ps []cloud.Pool
	var fs []provision.Flavor
	var currency *field.Path // the first priced flavor's pricePerHour.currency
	var first string         // and its value
	add := func(path *field.Path, name, instanceType string, f multiclusterv1alpha1.CloudFlavor) {
		if f.CPU.Sign() <= 0 {
			errs = append(errs, field.Invalid(path.Child("cpu"), f.CPU.String(), "must be positive, such as 4 or 3500m"))
		}
		if f.Memory.Sign() <= 0 {
			errs = append(errs, field.Invalid(path.Child("memory"), f.Memory.String(), "must be positive, such as 16Gi"))
		}
		var price money.Money
		if p := f.PricePerHour; p != nil {
			price = money.New(p.Amount, p.Currency)
			pp := path.Child("pricePerHour")
			if price.Sign() < 0 {
				errs = append(errs, field.Invalid(pp.Child("amount"), p.Amount.String(), "must be a decimal of at least 0, such as 0.16"))
			}
			if err := money.ValidCurrency(p.Currency); err != nil {
				errs = append(errs, field.Invalid(pp.Child("currency"), p.Currency, "must be an ISO 4217 code such as USD"))
			}
			switch {
			case currency == nil:
				currency = pp.Child("currency")
				first = p.Currency
			case p.Currency != first:
				errs = append(errs, field.Invalid(pp.Child("currency"), p.Currency,
					fmt.Sprintf("must be %s, the currency of %s: the provisioner compares flavors by price", first, currency)))
			}
		}
		pods := int64(f.Pods)
		if pods <= 0 {
			pods = podsPerNode
		}
		ps = append(ps, cloud.Pool{Name: name, Flavor: instanceType, NodeCPU: f.CPU, NodeMemory: f.Memory})
		fs = append(fs, provision.Flavor{Name: name, PricePerHour: price, Allocatable: placement.Resources{
			MilliCPU: f.CPU.MilliValue(), Memory: f.Memory.Value(), Pods: pods,
		}})
	}
	switch s := cp.Spec; {
	case len(s.Flavors) == 0:
		errs = append(errs, field.Required(field.NewPath("spec", "flavors"), "at least one flavor (name, cpu, memory, pricePerHour)"))
	default:
		for _, f := range s.Flavors {
			instanceType := f.InstanceType
			if instanceType == "" {
				instanceType = f.Name
			}
			add(field.NewPath("spec", "flavors").Key(f.Name), f.Name, instanceType, f)
		}
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("%w: %w", errInvalidSpec, errs.ToAggregate())
	}
	return ps, fs, nil
}

// config is the provision.Config for cp. The cluster lead time is the last
// measured provisioning when there is one.
func config(cp *multiclusterv1alpha1.CloudProvisioner, flavors []provision.Flavor, period time.Duration) provision.Config {
	clusterDelay := defaultClusterDelay
	if s, t := cp.Status.ProvisioningStartedTime, cp.Status.ProvisionedTime; s != nil && t != nil && t.After(s.Time) {
		clusterDelay = t.Sub(s.Time)
	}
	mode := provision.Mode(cp.Spec.Mode)
	if mode == "" {
		mode = provision.Reactive
	}
	return provision.Config{
		Mode:                 mode,
		Flavors:              flavors,
		MinNodes:             int(max(cp.Spec.MinNodes, 1)),
		MaxNodes:             int(max(cp.Spec.MaxNodes, cp.Spec.MinNodes, 1)),
		ClusterDelay:         clusterDelay,
		NodeDelay:            defaultNodeDelay,
		Period:               period,
		ScaleDownDelay:       durationOr(cp.Spec.ScaleDownDelay, 10*time.Minute),
		ScaleDownUtilization: scaleDownUtilization,
		DeprovisionDelay:     durationOr(cp.Spec.DeprovisionDelay, 20*time.Minute),
		TargetUtilization:    provision.DefaultTargetUtilization,
		TrendWindow:          max(provision.DefaultTrendWindow, period),
	}
}

// sameConfig reports whether cfg still matches what cp's spec asks for, so
// that a changed spec starts a new decision history.
func sameConfig(cfg provision.Config, cp *multiclusterv1alpha1.CloudProvisioner, flavors []provision.Flavor) bool {
	want := config(cp, flavors, cfg.Period)
	if len(cfg.Flavors) != len(want.Flavors) {
		return false
	}
	for i := range cfg.Flavors {
		a, b := cfg.Flavors[i], want.Flavors[i]
		if a.Name != b.Name || !a.PricePerHour.Equal(b.PricePerHour) || a.Allocatable.MilliCPU != b.Allocatable.MilliCPU ||
			a.Allocatable.Memory != b.Allocatable.Memory || a.Allocatable.Pods != b.Allocatable.Pods {
			return false
		}
	}
	return cfg.Mode == want.Mode && cfg.MinNodes == want.MinNodes && cfg.MaxNodes == want.MaxNodes &&
		cfg.ScaleDownDelay == want.ScaleDownDelay && cfg.DeprovisionDelay == want.DeprovisionDelay
}

func durationOr(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil || d.Duration <= 0 {
		return def
	}
	return d.Duration
}
