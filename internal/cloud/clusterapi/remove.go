package clusterapi

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// deleteMachineValue is the value of Cluster API's delete-machine
// annotation; Cluster API only looks for the key, and documents "yes".
const deleteMachineValue = "yes"

// markForRemoval annotates, when pool p's Workers is below its
// MachineDeployment's replicas, the Machines of the nodes p.Remove names
// with Cluster API's delete-machine annotation, in the order of p.Remove
// and no more than the replicas go down by, so that the MachineSet deletes
// those first. Nodes without a Machine of the pool are skipped: the
// MachineSet then chooses.
func (b *Backend) markForRemoval(ctx context.Context, n names, p cloud.Pool) error {
	if len(p.Remove) == 0 {
		return nil
	}
	workers := n.workers(p.Name)
	md := &clusterv1.MachineDeployment{}
	err := b.get(ctx, machineDeploymentKind, n.key(workers), md)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to read MachineDeployment %s: %w", n.key(workers), err)
	}
	surplus := ptr.Deref(md.Spec.Replicas, 1) - p.Workers
	if surplus <= 0 {
		return nil
	}
	machines, err := list[clusterv1.Machine](ctx, b.client, machineKind, client.InNamespace(n.namespace), client.MatchingLabels(n.machineLabels(p.Name)))
	if err != nil {
		return fmt.Errorf("failed to list the Machines of MachineDeployment %s: %w", n.key(workers), err)
	}
	byNode := map[string]*clusterv1.Machine{}
	for i, m := range machines {
		if m.Status.NodeRef.IsDefined() && m.DeletionTimestamp.IsZero() {
			byNode[m.Status.NodeRef.Name] = &machines[i]
		}
	}
	for _, node := range p.Remove {
		if surplus == 0 {
			break
		}
		m, ok := byNode[node]
		if !ok {
			continue
		}
		surplus--
		if _, marked := m.Annotations[clusterv1.DeleteMachineAnnotation]; marked {
			continue
		}
		if err := b.markMachine(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// markMachine adds the delete-machine annotation with a merge patch, which,
// unlike an apply, cannot create a Machine that was deleted meanwhile.
func (b *Backend) markMachine(ctx context.Context, m *clusterv1.Machine) error {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"annotations": map[string]string{clusterv1.DeleteMachineAnnotation: deleteMachineValue},
		},
	})
	if err != nil {
		return fmt.Errorf("failed to encode the delete-machine annotation: %w", err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(machineKind)
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	err = b.client.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldManager))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to mark Machine %s/%s of node %q for deletion: %w", m.Namespace, m.Name, m.Status.NodeRef.Name, err)
	}
	return nil
}
