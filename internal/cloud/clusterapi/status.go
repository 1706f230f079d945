package clusterapi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// KubeconfigKey is the key of the kubeconfig in the Secret Cluster API
// writes for a cluster, <cluster>-kubeconfig.
const KubeconfigKey = "value"

// Status reads the Cluster, the MachineDeployments of its pools (those of
// spec, then every other one Meridian wrote for the cluster, Removed) and
// its kubeconfig Secret. A Cluster that Meridian did not write is not Meridian's cluster:
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
	found, err := b.machineDeployments(ctx, n)
	if err != nil {
		return cloud.Status{}, err
	}
	report := func(name string, removed bool) {
		md := found[name]
		ps := cloud.PoolStatus{Name: name, Workers: ptr.Deref(md.Status.Replicas, 0), ReadyWorkers: ptr.Deref(md.Status.ReadyReplicas, 0), Removed: removed}
		st.Pools = append(st.Pools, ps)
		st.Workers += ps.Workers
		st.ReadyWorkers += ps.ReadyWorkers
	}
	listed := map[string]bool{}
	for _, p := range spec.Pools {
		listed[p.Name] = true
		if _, ok := found[p.Name]; ok || !p.Retired {
			report(p.Name, p.Retired)
		}
	}
	// Every other pool found is one whose flavor was removed: reported,
	// so that it is drained and deleted rather than run unseen.
	for _, name := range slices.Sorted(maps.Keys(found)) {
		if !listed[name] {
			report(name, true)
		}
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

// machineDeployments are the MachineDeployments Meridian wrote for the
// pools of cluster n, by pool name (their LabelNodePool, or the name after
// <cluster>-md-).
func (b *Backend) machineDeployments(ctx context.Context, n names) (map[string]clusterv1.MachineDeployment, error) {
	mds, err := list[clusterv1.MachineDeployment](ctx, b.client, machineDeploymentKind, client.InNamespace(n.namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: n.cluster})
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to list the MachineDeployments of Cluster %s: %w", n.key(n.cluster), err)
	}
	out := map[string]clusterv1.MachineDeployment{}
	prefix := n.workers("")
	for _, md := range mds {
		if !written(&md) || !strings.HasPrefix(md.Name, prefix) {
			continue
		}
		pool := md.Spec.Template.Labels[multiclusterv1alpha1.LabelNodePool]
		if pool == "" {
			pool = strings.TrimPrefix(md.Name, prefix)
		}
		out[pool] = md
	}
	return out, nil
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
