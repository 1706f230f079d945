package clusterapi

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// KubeconfigKey is the key of the kubeconfig in the Secret Cluster API
// writes for a cluster, <cluster>-kubeconfig.
const KubeconfigKey = "value"

// Status reads the Cluster, its MachineDeployment and its kubeconfig
// Secret. A Cluster that Meridian did not write is not Meridian's cluster:
// Status reports it as not existing, and Ensure refuses it.
func (b *Backend) Status(ctx context.Context, spec cloud.Spec) (cloud.Status, error) {
	if errs := validateIdentity(spec); len(errs) > 0 {
		return cloud.Status{}, invalid(errs)
	}
	n := namesOf(spec)
	cl := &clusterv1.Cluster{}
	err := b.get(ctx, clusterKind, n.key(n.cluster), cl)
	switch {
	case meta.IsNoMatchError(err):
		return cloud.Status{Message: "Cluster API is not installed in the management cluster: no " + clusterKind.GroupVersion().String() + " Cluster kind"}, nil
	case apierrors.IsNotFound(err):
		return cloud.Status{Message: fmt.Sprintf("no Cluster %s", n.key(n.cluster))}, nil
	case err != nil:
		return cloud.Status{}, fmt.Errorf("failed to read Cluster %s: %w", n.key(n.cluster), err)
	case !written(cl):
		return cloud.Status{Message: fmt.Sprintf("Cluster %s was not written by Meridian: choose another %s", n.key(n.cluster), pathName)}, nil
	}

	st := cloud.Status{Exists: true}
	for _, p := range spec.Pools {
		md := &clusterv1.MachineDeployment{}
		err = b.get(ctx, machineDeploymentKind, n.key(n.workers(p.Name)), md)
		if err != nil && !apierrors.IsNotFound(err) {
			return cloud.Status{}, fmt.Errorf("failed to read MachineDeployment %s: %w", n.key(n.workers(p.Name)), err)
		}
		ps := cloud.PoolStatus{Name: p.Name, Workers: ptr.Deref(md.Status.Replicas, 0), ReadyWorkers: ptr.Deref(md.Status.ReadyReplicas, 0)}
		st.Pools = append(st.Pools, ps)
		st.Workers += ps.Workers
		st.ReadyWorkers += ps.ReadyWorkers
	}

	if !cl.DeletionTimestamp.IsZero() {
		st.Message = fmt.Sprintf("Cluster %s is being deleted", n.key(n.cluster))
		return st, nil
	}
	if !controlPlaneInitialized(cl) {
		st.Message = waitingFor(cl)
		return st, nil
	}
	secret := &corev1.Secret{}
	err = b.client.Get(ctx, n.key(n.kubeconfig), secret)
	if apierrors.IsNotFound(err) {
		st.Message = fmt.Sprintf("waiting for the kubeconfig Secret %s", n.key(n.kubeconfig))
		return st, nil
	}
	if err != nil {
		return cloud.Status{}, fmt.Errorf("failed to read the kubeconfig Secret %s: %w", n.key(n.kubeconfig), err)
	}
	kubeconfig := secret.Data[KubeconfigKey]
	if len(kubeconfig) == 0 {
		st.Message = fmt.Sprintf("waiting for the kubeconfig in key %q of Secret %s", KubeconfigKey, n.key(n.kubeconfig))
		return st, nil
	}
	st.Ready, st.Kubeconfig = true, kubeconfig
	if st.ReadyWorkers < spec.Workers() {
		st.Message = fmt.Sprintf("waiting for workers: %d of %d ready", st.ReadyWorkers, spec.Workers())
	}
	return st, nil
}

// controlPlaneInitialized is the Cluster API contract's signal that the API
// server accepts requests; the condition says the same for clusters whose
// controller writes conditions first.
func controlPlaneInitialized(cl *clusterv1.Cluster) bool {
	return ptr.Deref(cl.Status.Initialization.ControlPlaneInitialized, false) ||
		meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition)
}

// waitingFor says what an uninitialized Cluster waits for: its
// infrastructure, then its control plane, with Cluster API's condition
// message when there is one.
func waitingFor(cl *clusterv1.Cluster) string {
	msg := fmt.Sprintf("waiting for the control plane (%s %s/%s)", cl.Spec.ControlPlaneRef.Kind, cl.Namespace, cl.Spec.ControlPlaneRef.Name)
	condition := clusterv1.ClusterControlPlaneInitializedCondition
	provisioned := ptr.Deref(cl.Status.Initialization.InfrastructureProvisioned, false) ||
		meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1.ClusterInfrastructureReadyCondition)
	if !provisioned {
		msg = fmt.Sprintf("waiting for the infrastructure (%s %s/%s)", cl.Spec.InfrastructureRef.Kind, cl.Namespace, cl.Spec.InfrastructureRef.Name)
		condition = clusterv1.ClusterInfrastructureReadyCondition
	}
	if c := meta.FindStatusCondition(cl.Status.Conditions, condition); c != nil && c.Message != "" {
		msg += ": " + c.Message
	}
	return msg
}
