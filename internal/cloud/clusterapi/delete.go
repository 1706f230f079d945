package clusterapi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// Delete deletes the objects Meridian wrote, never others of the same names:
// the Cluster, which Cluster API tears down in order
// (workers, control plane, infrastructure cluster), and the templates,
// which nothing needs while a cluster is deleted. Once the Cluster is gone
// it deletes what is left of the rest: that happens only when no Cluster
// API controller removed it, for example when the Cluster was deleted
// before Cluster API saw it.
func (b *Backend) Delete(ctx context.Context, spec cloud.Spec) error {
	infra, err := b.infrastructureFor(spec)
	if err != nil {
		return err
	}
	n := namesOf(spec)
	gone, err := b.deleteCluster(ctx, n)
	if errors.Is(err, errForeign) {
		return nil
	}
	if err != nil {
		return err
	}
	type object struct {
		kind schema.GroupVersionKind
		name string
	}
	// The pools of spec, and those of flavors removed since.
	pools := map[string]bool{}
	for _, p := range spec.Pools {
		pools[p.Name] = true
	}
	found, err := b.machineDeployments(ctx, n)
	if err != nil {
		return err
	}
	for name := range found {
		pools[name] = true
	}
	objects := []object{{infra.machineTemplateKind(), n.controlPlane}}
	for _, p := range slices.Sorted(maps.Keys(pools)) {
		objects = append(objects, object{kubeadmConfigTemplateKind, n.workers(p)}, object{infra.machineTemplateKind(), n.workers(p)})
	}
	if gone {
		for _, p := range slices.Sorted(maps.Keys(pools)) {
			objects = append(objects, object{machineDeploymentKind, n.workers(p)})
		}
		objects = append(objects, object{controlPlaneKind, n.controlPlane}, object{infra.clusterKind(), n.cluster})
	}
	for _, o := range objects {
		if err := b.remove(ctx, o.kind, n.key(o.name)); err != nil {
			return err
		}
	}
	return nil
}

// errForeign says that a Cluster of the name exists that Meridian did not
// write; Status reports it as no cluster of Meridian's, so Delete leaves it
// and the objects named like its own alone.
var errForeign = errors.New("cluster not written by Meridian")

// deleteCluster deletes the Cluster if Meridian wrote it, and says whether
// it is gone.
func (b *Backend) deleteCluster(ctx context.Context, n names) (gone bool, err error) {
	key := n.key(n.cluster)
	cl := &clusterv1.Cluster{}
	err = b.get(ctx, clusterKind, key, cl)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("failed to read Cluster %s: %w", key, err)
	case !written(cl):
		return false, errForeign
	}
	if err := b.remove(ctx, clusterKind, key); err != nil {
		return false, err
	}
	err = b.get(ctx, clusterKind, key, cl)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("failed to read Cluster %s: %w", key, err)
	}
	return false, nil
}
