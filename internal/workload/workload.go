// Package workload converts Meridian's workload objects, the
// MultiClusterDeployment and the MultiClusterJob, into what the placement
// framework places: the pod request computed from the template, the
// placement block with its defaults, and the key under which the inventory
// finds the workload's member objects.
package workload

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
)

// Key is the placement key of a workload: the inventory's owner key
// (kind/namespace/name) of its member objects.
func Key(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

// New returns the placement workload of kind with replicas pods of spec,
// placed by pl. Errors name the field at fault.
func New(key string, kind placement.WorkloadKind, replicas int32, spec *corev1.PodSpec, pl multiclusterv1alpha1.Placement) (*placement.Workload, error) {
	w := &placement.Workload{
		Key:          key,
		Kind:         kind,
		Replicas:     replicas,
		PodRequests:  placement.PodRequests(&corev1.Pod{Spec: *spec}),
		Tolerations:  pl.ClusterTolerations,
		Policy:       Policy(pl),
		Substitution: pl.Substitution != nil && pl.Substitution.Enabled,
		Bursting:     pl.Bursting != nil && pl.Bursting.Enabled,
	}
	for _, l := range pl.Locations {
		w.Locations = append(w.Locations, string(l))
	}
	if pl.NumberOfLocations != nil {
		w.NumberOfLocations = *pl.NumberOfLocations
	}
	if pl.LatencyLimit != nil {
		w.MaxLatency = pl.LatencyLimit.MaxRTT.Duration
		w.LatencyOrigin = string(pl.LatencyLimit.Origin)
	}
	if pl.Residency != nil {
		w.Jurisdictions = append([]string(nil), pl.Residency.Jurisdictions...)
	}
	if pl.ClusterSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(pl.ClusterSelector)
		if err != nil {
			return nil, fmt.Errorf("spec.placement.clusterSelector is not a valid label selector: %w", err)
		}
		w.ClusterSelector = sel
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// Policy returns the placement policy of pl, defaulted: ClusterAffinity
// when locations are given, WorstFit otherwise.
func Policy(pl multiclusterv1alpha1.Placement) placement.Policy {
	switch {
	case pl.Policy != "":
		return placement.Policy(pl.Policy)
	case len(pl.Locations) > 0:
		return placement.PolicyClusterAffinity
	default:
		return placement.PolicyWorstFit
	}
}
