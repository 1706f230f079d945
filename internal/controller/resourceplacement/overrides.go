package resourceplacement

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/overrides"
	"github.com/meridian-dev/meridian/internal/workload"
)

// overrider applies a policy's override rules to the member objects of one
// pass and records which rules changed which cluster's object.
type overrider struct {
	rules    []multiclusterv1alpha1.OverrideRule
	clusters map[string]overrides.Cluster
	// generation is the policy's, which changes when its rules do.
	generation int64
}

// newOverrider reads the Clusters the rules' targets match against.
func (r *Reconciler) newOverrider(ctx context.Context, rules []multiclusterv1alpha1.OverrideRule, generation int64) (*overrider, error) {
	o := &overrider{rules: rules, clusters: map[string]overrides.Cluster{}, generation: generation}
	if len(rules) == 0 {
		return o, nil
	}
	var list multiclusterv1alpha1.ClusterList
	if err := r.Client.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("failed to list Clusters for the override rules: %w", err)
	}
	for _, c := range list.Items {
		o.clusters[c.Name] = overrides.Cluster{Name: c.Name, Region: c.Spec.Region, Labels: c.Labels}
	}
	return o, nil
}

// apply changes obj for cluster by the rules.
func (o *overrider) apply(cluster string, obj *unstructured.Unstructured) error {
	if len(o.rules) == 0 {
		return nil
	}
	c, ok := o.clusters[cluster]
	if !ok {
		c = overrides.Cluster{Name: cluster}
	}
	if _, err := overrides.Apply(obj, workload.PodTemplatePath(obj.GroupVersionKind()), c, o.rules); err != nil {
		return fmt.Errorf("%w: %w", errOverride, err)
	}
	return nil
}

// status names, for each of the clusters that hold the object, the rules
// that target it, for the placement's status.
func (o *overrider) status(holding []string) []multiclusterv1alpha1.AppliedOverrides {
	var out []multiclusterv1alpha1.AppliedOverrides
	for _, name := range slices.Sorted(slices.Values(holding)) {
		c, ok := o.clusters[name]
		if !ok {
			c = overrides.Cluster{Name: name}
		}
		var rules []string
		for _, r := range o.rules {
			if ok, err := overrides.Targets(r.TargetClusters, c); err == nil && ok {
				rules = append(rules, r.Name)
			}
		}
		if len(rules) > 0 {
			out = append(out, multiclusterv1alpha1.AppliedOverrides{Cluster: multiclusterv1alpha1.ClusterName(name), Rules: rules})
		}
	}
	return out
}
