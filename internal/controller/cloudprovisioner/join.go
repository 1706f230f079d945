package cloudprovisioner

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/provision"
)

// kubeconfigKey is the key of the joined cluster's kubeconfig in its Secret.
const kubeconfigKey = "kubeconfig"

// secretName names the Secret Meridian joins a cloud cluster with. It
// differs from Cluster API's "<name>-kubeconfig", which may live in the
// same namespace.
func secretName(cluster string) string { return cluster + "-member-kubeconfig" }

// cloudSpec is what cp asks of its backend: its node pools, each with the
// worker count last asked for (a status written before node pools has
// only the total, which is the one pool's), and the flavors the
// provisioner chooses from.
func (r *Reconciler) cloudSpec(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner) (cloud.Spec, []provision.Flavor, error) {
	ps, flavors, err := pools(cp)
	if err != nil {
		return cloud.Spec{}, nil, err
	}
	desired, removing := map[string]int32{}, map[string][]string{}
	for _, p := range cp.Status.Pools {
		desired[p.Name], removing[p.Name] = p.DesiredNodes, p.Removing
	}
	if len(cp.Status.Pools) == 0 && len(ps) == 1 {
		desired[ps[0].Name] = cp.Status.DesiredNodes
	}
	for i := range ps {
		ps[i].Workers, ps[i].Remove = desired[ps[i].Name], slices.Clone(removing[ps[i].Name])
	}
	spec := cloud.Spec{
		Name:       string(cp.Spec.CloudClusterName),
		Namespace:  cp.Namespace,
		Provider:   string(cp.Spec.Provider),
		Region:     cp.Spec.Region,
		FloatingIP: cp.Spec.FloatingIP,
		Pools:      ps,
		Labels:     map[string]string{multiclusterv1alpha1.LabelCloudProvisioner: cp.Name},
	}
	if ref := cp.Spec.CredentialsSecretRef; ref != nil {
		ns := ref.Namespace
		if ns == "" {
			ns = cp.Namespace
		}
		if ns != cp.Namespace {
			return spec, flavors, fmt.Errorf("spec.credentialsSecretRef.namespace %q: the credentials Secret must be in the CloudProvisioner's namespace %q", ns, cp.Namespace)
		}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, &corev1.Secret{}); err != nil {
			return spec, flavors, fmt.Errorf("failed to read the credentials Secret %s/%s named by spec.credentialsSecretRef: %w", ns, ref.Name, err)
		}
		spec.CredentialsSecret = ref.Name
	}
	return spec, flavors, nil
}

// retire adds to spec, as Retired, the pools the backend found that spec
// does not list (their flavor was removed), so that their nodes are
// drained and they are scaled to zero and deleted instead of running
// unreported. A retired pool keeps the workers last asked of it, at most
// what it has.
func retire(spec *cloud.Spec, st cloud.Status, recorded []multiclusterv1alpha1.NodePoolStatus) {
	for _, ps := range st.Pools {
		if !ps.Removed || slices.ContainsFunc(spec.Pools, func(p cloud.Pool) bool { return p.Name == ps.Name }) {
			continue
		}
		workers := ps.Workers
		var remove []string
		for _, r := range recorded {
			if r.Name == ps.Name && r.Removed {
				workers, remove = min(workers, r.DesiredNodes), slices.Clone(r.Removing)
			}
		}
		spec.Pools = append(spec.Pools, cloud.Pool{Name: ps.Name, Workers: workers, Remove: remove, Retired: true})
	}
}

// recordPools writes the worker counts asked of the backend to cp's
// status, per pool and in total.
func recordPools(cp *multiclusterv1alpha1.CloudProvisioner, spec cloud.Spec, st cloud.Status) {
	byName := map[string]cloud.PoolStatus{}
	for _, p := range st.Pools {
		byName[p.Name] = p
	}
	cp.Status.Pools = nil
	for _, p := range spec.Pools {
		cp.Status.Pools = append(cp.Status.Pools, multiclusterv1alpha1.NodePoolStatus{
			Name: p.Name, DesiredNodes: p.Workers, Nodes: byName[p.Name].Workers, ReadyNodes: byName[p.Name].ReadyWorkers, Removed: p.Retired,
			Removing: slices.Clone(p.Remove),
		})
	}
	cp.Status.DesiredNodes = spec.Workers()
}

// join writes the cloud cluster's kubeconfig to a Secret and makes it a
// Cluster marked cloud, so that placement uses it last.
func (r *Reconciler) join(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, kubeconfig []byte) error {
	name := string(cp.Spec.CloudClusterName)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: secretName(name)}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, secret, func() error {
		if err := owned(secret, cp); err != nil {
			return err
		}
		secret.Data = map[string][]byte{kubeconfigKey: kubeconfig}
		return nil
	}); err != nil {
		return fmt.Errorf("failed to write the kubeconfig Secret of cloud cluster %q: %w", name, err)
	}
	cl := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cl, func() error {
		if err := owned(cl, cp); err != nil {
			return err
		}
		cl.Spec.Cloud = true
		cl.Spec.Region = cp.Spec.Region
		cl.Spec.Provider = string(cp.Spec.Provider)
		cl.Spec.KubeconfigSecretRef = multiclusterv1alpha1.SecretReference{Namespace: r.Namespace, Name: secret.Name, Key: kubeconfigKey}
		return nil
	}); err != nil {
		return fmt.Errorf("failed to join cloud cluster %q as a Cluster: %w", name, err)
	}
	return nil
}

// owned labels obj as cp's, and refuses an object that exists and belongs
// to someone else.
func owned(obj client.Object, cp *multiclusterv1alpha1.CloudProvisioner) error {
	labels := obj.GetLabels()
	if obj.GetResourceVersion() != "" && labels[multiclusterv1alpha1.LabelCloudProvisioner] != cp.Name {
		return fmt.Errorf("%T %q exists and was not made by CloudProvisioner %q: choose another spec.cloudClusterName", obj, obj.GetName(), cp.Name)
	}
	if labels == nil {
		labels = map[string]string{}
	}
	labels[multiclusterv1alpha1.LabelCloudProvisioner] = cp.Name
	obj.SetLabels(labels)
	return nil
}

// leave deletes the joined Cluster and its Secret; it reports whether the
// Cluster is gone (its finalizer first removes what Meridian propagated).
func (r *Reconciler) leave(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner) (bool, error) {
	name := string(cp.Spec.CloudClusterName)
	cl := &multiclusterv1alpha1.Cluster{}
	err := r.Client.Get(ctx, client.ObjectKey{Name: name}, cl)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, fmt.Errorf("failed to get Cluster %q: %w", name, err)
	case cl.Labels[multiclusterv1alpha1.LabelCloudProvisioner] != cp.Name:
		// Not ours: never delete a member someone else registered.
	default:
		if err := r.Client.Delete(ctx, cl); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("failed to delete Cluster %q: %w", name, err)
		}
		return false, nil
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: secretName(name)}}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(secret), secret); err == nil && secret.Labels[multiclusterv1alpha1.LabelCloudProvisioner] == cp.Name {
		if err := r.Client.Delete(ctx, secret); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("failed to delete the kubeconfig Secret of cloud cluster %q: %w", name, err)
		}
	}
	return true, nil
}
