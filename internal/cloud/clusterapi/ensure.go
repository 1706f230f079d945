package clusterapi

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// Ensure writes the cluster's objects, those referenced before those that
// reference them, so that Cluster API finds everything a Cluster needs
// once it sees it. Each pool is one MachineDeployment with its templates.
// When a pool's workers go down, it marks the Machines of the nodes in the
// pool's Remove for deletion before it lowers the replicas.
func (b *Backend) Ensure(ctx context.Context, spec cloud.Spec) error {
	infra, err := b.infrastructureFor(spec)
	if err != nil {
		return err
	}
	if errs := validatePools(spec); len(errs) > 0 {
		return invalid(errs)
	}
	if err := infra.validate(ctx, b.client, spec); err != nil {
		return err
	}
	n := namesOf(spec)
	if err := b.checkCluster(ctx, n); err != nil {
		return err
	}
	objects := []client.Object{
		infra.cluster(spec, n),
		infra.machineTemplate(spec, n.key(n.controlPlane), "", true),
	}
	for _, p := range spec.Pools {
		if !p.Retired {
			objects = append(objects, infra.machineTemplate(spec, n.key(n.workers(p.Name)), p.Flavor, false), b.configTemplate(infra, n, p))
		}
	}
	objects = append(objects, b.controlPlane(infra, n), b.cluster(infra, n))
	for _, obj := range objects {
		label(obj, spec, n)
		if err := b.apply(ctx, obj); err != nil {
			return err
		}
	}
	for _, p := range spec.Pools {
		if err := b.markForRemoval(ctx, n, p); err != nil {
			return err
		}
		if p.Retired {
			if err := b.retire(ctx, infra, n, p); err != nil {
				return err
			}
			continue
		}
		md := b.machineDeployment(infra, n, p)
		label(md, spec, n)
		if err := b.apply(ctx, md); err != nil {
			return err
		}
	}
	return nil
}

// retire lowers the replicas of a retired pool's MachineDeployment to
// p.Workers (never raises them), with a merge patch, as its flavor is not
// known any more to apply it whole; once it has no Machine left it deletes
// the MachineDeployment and its templates.
func (b *Backend) retire(ctx context.Context, infra infrastructure, n names, p cloud.Pool) error {
	key := n.key(n.workers(p.Name))
	md := &clusterv1.MachineDeployment{}
	err := b.get(ctx, machineDeploymentKind, key, md)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to read MachineDeployment %s: %w", key, err)
	}
	if !written(md) {
		return nil
	}
	if replicas := ptr.Deref(md.Spec.Replicas, 1); p.Workers < replicas {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(machineDeploymentKind)
		u.SetNamespace(key.Namespace)
		u.SetName(key.Name)
		patch := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, max(p.Workers, 0)))
		if err := b.client.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldManager)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to scale MachineDeployment %s of removed pool %q to %d: %w", key, p.Name, p.Workers, err)
		}
		return nil
	}
	if p.Workers > 0 || ptr.Deref(md.Status.Replicas, 0) > 0 {
		return nil
	}
	for _, kind := range []schema.GroupVersionKind{machineDeploymentKind, kubeadmConfigTemplateKind, infra.machineTemplateKind()} {
		if err := b.remove(ctx, kind, key); err != nil {
			return err
		}
	}
	return nil
}

// checkCluster refuses a Cluster of the same name that Meridian did not
// write, as applying over it would take over, and scale, someone else's
// cluster; and a Cluster being deleted, as applying would bring back the
// templates Delete removed while Cluster API tears the cluster down.
func (b *Backend) checkCluster(ctx context.Context, n names) error {
	cl := &clusterv1.Cluster{}
	err := b.get(ctx, clusterKind, n.key(n.cluster), cl)
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to read Cluster %s: %w", n.key(n.cluster), err)
	}
	if !written(cl) {
		return fmt.Errorf("%w: %w", cloud.ErrInvalidSpec, field.Invalid(pathName, n.cluster,
			fmt.Sprintf("Cluster %s exists and was not written by Meridian (no field manager %q): choose another name", n.key(n.cluster), FieldManager)))
	}
	if !cl.DeletionTimestamp.IsZero() {
		return fmt.Errorf("cannot ensure Cluster %s while it is being deleted: try again once it is gone", n.key(n.cluster))
	}
	return nil
}

// written says whether Meridian applied obj.
func written(obj metav1.Object) bool {
	return slices.ContainsFunc(obj.GetManagedFields(), func(f metav1.ManagedFieldsEntry) bool {
		return f.Manager == FieldManager && f.Operation == metav1.ManagedFieldsOperationApply
	})
}
