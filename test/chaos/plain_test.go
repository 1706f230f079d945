package chaos_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller/resourceplacement"
)

// Policy-placed workloads: plain Deployments named p-<n>, each with its
// PropagationPolicy of the same name and a ConfigMap p-<n>-config its pods
// read, which must follow the replicas into the members.
const plainNames = 4

func configOf(deployment string) string { return deployment + "-config" }

// createPlain creates a plain Deployment of a free name with its policy
// (WorstFit, or pinned to one member with substitution) and its ConfigMap.
// The policy comes first or last at random: a template waits for its
// policy, and a policy for its template.
func (d *driver) createPlain(ctx context.Context) error {
	name := fmt.Sprintf("p-%d", d.rng.IntN(plainNames))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configOf(name), Namespace: namespace},
		Data: map[string]string{"op": strconv.Itoa(d.ops)}}
	if err := ignoreConflicts(d.w.mgmt.Create(ctx, cm)); err != nil {
		return fmt.Errorf("failed to create ConfigMap %s: %w", cm.Name, err)
	}
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}}
	pp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit}
	if d.rng.IntN(2) == 0 {
		member := multiclusterv1alpha1.ClusterName(d.w.names[d.rng.IntN(len(d.w.names))])
		pp.Spec.Placement = multiclusterv1alpha1.Placement{
			Locations:    []multiclusterv1alpha1.ClusterName{member},
			Substitution: &multiclusterv1alpha1.Substitution{Enabled: true, Policy: multiclusterv1alpha1.SubstituteNearestFirst},
		}
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	dep.Spec.Replicas = ptr.To(int32(1 + d.rng.IntN(8)))
	dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	dep.Spec.Template = podTemplate(name, 250+250*int64(d.rng.IntN(3)))
	dep.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{
		ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: configOf(name)}},
	}}
	objs := []client.Object{pp, dep}
	if d.rng.IntN(2) == 0 {
		objs = []client.Object{dep, pp}
	}
	for _, o := range objs {
		if err := ignoreConflicts(d.w.mgmt.Create(ctx, o)); err != nil {
			return fmt.Errorf("failed to create %T %s: %w", o, name, err)
		}
	}
	return nil
}

// deletePolicy deletes a random PropagationPolicy: its Deployment stays in
// the management cluster and must leave every member. With none to
// delete, it creates a policy-placed Deployment instead (counted as such).
func (d *driver) deletePolicy(ctx context.Context) error {
	var list multiclusterv1alpha1.PropagationPolicyList
	if err := d.w.mgmt.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("failed to list PropagationPolicies: %w", err)
	}
	if len(list.Items) == 0 {
		d.count("plain")
		return d.createPlain(ctx)
	}
	d.count("unpolicy")
	return ignoreConflicts(d.w.mgmt.Delete(ctx, &list.Items[d.rng.IntN(len(list.Items))]))
}

// plainDeployments lists the management cluster's plain Deployments of the
// chaos namespace (the templates).
func (w *world) plainDeployments(ctx context.Context) ([]appsv1.Deployment, error) {
	var list appsv1.DeploymentList
	if err := w.mgmt.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("failed to list Deployments: %w", err)
	}
	return list.Items, nil
}

// inspectPlain checks the policy-placed Deployments: each
// ResourcePlacement's template placed in full, as its status says (with
// the checks of MultiClusterDeployments); and their ConfigMaps: a copy in
// every member that runs a replica (else lost), none used by nothing
// alive (else orphaned).
func (w *world) inspectPlain(ctx context.Context, r *report, rps []multiclusterv1alpha1.ResourcePlacement, byOwner map[string]map[string][]owned) error {
	templates, err := w.plainDeployments(ctx)
	if err != nil {
		return err
	}
	tpl := map[string]*appsv1.Deployment{}
	for i := range templates {
		tpl[templates[i].Name] = &templates[i]
	}
	// alive are the users a dependency copy may name, as the dependencies
	// controller writes them (kind/name).
	alive := map[string]bool{}
	var mcds multiclusterv1alpha1.MultiClusterDeploymentList
	if err := w.mgmt.List(ctx, &mcds, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	for _, m := range mcds.Items {
		alive["MultiClusterDeployment/"+m.Name] = true
	}
	var mcjs multiclusterv1alpha1.MultiClusterJobList
	if err := w.mgmt.List(ctx, &mcjs, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("failed to list MultiClusterJobs: %w", err)
	}
	for _, j := range mcjs.Items {
		alive["MultiClusterJob/"+j.Name] = true
	}
	for i := range rps {
		rp := &rps[i]
		d := tpl[rp.Spec.Resource.Name]
		if rp.DeletionTimestamp != nil || rp.Spec.Resource.Kind != "Deployment" || d == nil || d.DeletionTimestamp != nil {
			continue // being removed: only the orphan check applies
		}
		alive["Deployment/"+d.Name] = true
		want := ptr.Deref(d.Spec.Replicas, 1)
		var decided int32
		for _, c := range rp.Status.Clusters {
			decided += c.Replicas
		}
		per := byOwner[ownerKey(resourceplacement.Kind, rp.Namespace, rp.Name)]
		checkPlacement(r, "Deployment "+d.Namespace+"/"+d.Name+" (ResourcePlacement "+rp.Name+")", d.Generation, rp.Status.ObservedGeneration,
			want, max(0, want-decided), rp.Status.Clusters, per)
	}

	copies := map[string]map[string][]string{} // member -> ConfigMap -> users
	for _, member := range w.names {
		var list corev1.ConfigMapList
		if err := w.members[member].List(ctx, &list, client.InNamespace(namespace), client.MatchingLabels{multiclusterv1alpha1.LabelDependency: "true"}); err != nil {
			return fmt.Errorf("failed to list the dependency copies of member %q: %w", member, err)
		}
		copies[member] = map[string][]string{}
		for _, cm := range list.Items {
			if cm.DeletionTimestamp != nil {
				continue
			}
			users := strings.Split(cm.Annotations[multiclusterv1alpha1.AnnotationUsedBy], ",")
			copies[member][cm.Name] = users
			r.saw(checkOrphaned)
			for _, u := range users {
				if !alive[u] {
					r.violate(checkOrphaned, "ConfigMap %s in %s: copied for %s, which is gone", cm.Name, member, u)
				}
			}
		}
	}
	for i := range rps {
		rp := &rps[i]
		if !alive["Deployment/"+rp.Spec.Resource.Name] {
			continue
		}
		for member, list := range byOwner[ownerKey(resourceplacement.Kind, rp.Namespace, rp.Name)] {
			for _, o := range list {
				if o.replicas == 0 {
					continue
				}
				r.saw(checkLost)
				user := "Deployment/" + rp.Spec.Resource.Name
				users, found := copies[member][configOf(rp.Spec.Resource.Name)]
				switch {
				case !found:
					r.violate(checkLost, "%s runs %d replicas in %s without its ConfigMap %s", user, o.replicas, member, configOf(rp.Spec.Resource.Name))
				case !slices.Contains(users, user):
					r.violate(checkLost, "ConfigMap %s in %s: used by %v, not by %s, which runs there", configOf(rp.Spec.Resource.Name), member, users, user)
				}
			}
		}
	}
	return nil
}
