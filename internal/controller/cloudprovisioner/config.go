package cloudprovisioner

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
)

// The provisioner's settings that the CloudProvisioner does not expose.
const (
	// podsPerNode is what a cloud worker's kubelet admits (Kubernetes'
	// default max-pods).
	podsPerNode = 110
	// scaleDownUtilization is the Kubernetes cluster autoscaler's default.
	scaleDownUtilization = 0.5
	// targetUtilization and trendWindow drive the predictive mode.
	targetUtilization = 0.7
	trendWindow       = 10 * time.Minute
	// defaultClusterDelay and defaultNodeDelay are the lead times the
	// predictive mode assumes until one provisioning has been measured
	// (seed 001 measured minutes on OpenStack).
	defaultClusterDelay = 5 * time.Minute
	defaultNodeDelay    = 2 * time.Minute
)

// flavor is the one machine size cp provisions.
func flavor(cp *multiclusterv1alpha1.CloudProvisioner) provision.Flavor {
	name := cp.Spec.NodeSize.Flavor
	if name == "" {
		name = cp.Spec.NodeSize.CPU.String() + "-" + cp.Spec.NodeSize.Memory.String()
	}
	return provision.Flavor{Name: name, Allocatable: placement.Resources{
		MilliCPU: cp.Spec.NodeSize.CPU.MilliValue(), Memory: cp.Spec.NodeSize.Memory.Value(), Pods: podsPerNode,
	}}
}

// config is the provision.Config for cp. The cluster lead time is the last
// measured provisioning when there is one.
func config(cp *multiclusterv1alpha1.CloudProvisioner, period time.Duration) provision.Config {
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
		Flavors:              []provision.Flavor{flavor(cp)},
		MinNodes:             int(max(cp.Spec.MinNodes, 1)),
		MaxNodes:             int(max(cp.Spec.MaxNodes, cp.Spec.MinNodes, 1)),
		ClusterDelay:         clusterDelay,
		NodeDelay:            defaultNodeDelay,
		Period:               period,
		ScaleDownDelay:       durationOr(cp.Spec.ScaleDownDelay, 10*time.Minute),
		ScaleDownUtilization: scaleDownUtilization,
		DeprovisionDelay:     durationOr(cp.Spec.DeprovisionDelay, 20*time.Minute),
		TargetUtilization:    targetUtilization,
		TrendWindow:          max(trendWindow, period),
	}
}

// sameSize reports whether cfg still matches cp's spec, so that a changed
// spec starts a new decision history.
func sameSize(cfg provision.Config, cp *multiclusterv1alpha1.CloudProvisioner) bool {
	want := config(cp, cfg.Period)
	a, b := cfg.Flavors[0], want.Flavors[0]
	return a.Name == b.Name && a.Allocatable.MilliCPU == b.Allocatable.MilliCPU && a.Allocatable.Memory == b.Allocatable.Memory && cfg.MinNodes == want.MinNodes && cfg.MaxNodes == want.MaxNodes &&
		cfg.ScaleDownDelay == want.ScaleDownDelay && cfg.DeprovisionDelay == want.DeprovisionDelay
}

func durationOr(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil || d.Duration <= 0 {
		return def
	}
	return d.Duration
}
