package clusterprofile

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/clusterinventory"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/manifest"
)

// AnnotationClusterProfile is, on a Cluster made from another cluster
// manager's ClusterProfile, that profile (namespace/name).
const AnnotationClusterProfile = "multicluster.meridian.dev/cluster-profile"

// FieldManager is the field manager of the controller's writes.
const FieldManager = "meridian-clusterprofile"

// ReasonUnsupportedAccessProvider is the warning event of a ClusterProfile
// Meridian cannot take a member from.
const ReasonUnsupportedAccessProvider = "UnsupportedAccessProvider"

// Reconciler keeps ClusterProfiles and Clusters in step.
type Reconciler struct {
	Client client.Client
	// APIReader reads from the API server, so that a profile not yet in
	// the cache is never taken for one that is gone.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Namespace holds the ClusterProfiles, and the kubeconfig Secrets that
	// name no namespace.
	Namespace string
	// Import takes members from other cluster managers' ClusterProfiles.
	Import bool
}

// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=clusterprofiles,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=clusterprofiles/status,verbs=patch

// SetupWithManager registers the reconciler: a Cluster's request names it,
// a ClusterProfile's names it too, in the profile namespace.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.Cluster{}).
		Watches(&clusterinventory.ClusterProfile{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if o.GetNamespace() != r.Namespace {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetName()}}}
		})).
		Named("clusterprofile").
		Complete(r)
}

// Reconcile exports the Cluster named req.Name into its ClusterProfile, or
// imports the ClusterProfile of that name into a Cluster.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	c := &multiclusterv1alpha1.Cluster{}
	err := r.Client.Get(ctx, req.NamespacedName, c)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("failed to get Cluster %q: %w", req.Name, err)
	}
	if apierrors.IsNotFound(err) {
		c = nil
	}
	p := &clusterinventory.ClusterProfile{}
	err = r.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: req.Name}, p)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("failed to get ClusterProfile %s/%s: %w", r.Namespace, req.Name, err)
	}
	if apierrors.IsNotFound(err) {
		p = nil
	}
	foreign := p != nil && p.Spec.ClusterManager.Name != clusterinventory.Manager
	switch {
	case foreign:
		return ctrl.Result{}, r.importProfile(ctx, p, c)
	case c != nil && c.Annotations[AnnotationClusterProfile] != "":
		return ctrl.Result{}, r.profileGone(ctx, c)
	case c == nil || !c.DeletionTimestamp.IsZero():
		if p != nil {
			if err := r.Client.Delete(ctx, p); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, fmt.Errorf("failed to delete ClusterProfile %s/%s of a Cluster that is gone: %w", p.Namespace, p.Name, err)
			}
		}
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, r.export(ctx, c)
}

// profileGone deletes a Cluster made from a ClusterProfile that is gone,
// when this controller imported it (import on, the profile in its
// namespace) and the API server confirms the profile is gone; another
// Cluster is left alone.
func (r *Reconciler) profileGone(ctx context.Context, c *multiclusterv1alpha1.Cluster) error {
	key := r.Namespace + "/" + c.Name
	if !r.Import || c.Annotations[AnnotationClusterProfile] != key || c.Labels[clusterinventory.LabelClusterManager] == clusterinventory.Manager {
		return nil
	}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: c.Name}, &clusterinventory.ClusterProfile{})
	if err == nil || !apierrors.IsNotFound(err) {
		return client.IgnoreNotFound(err)
	}
	if err := r.Client.Delete(ctx, c); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete Cluster %q, whose ClusterProfile %s is gone: %w", c.Name, key, err)
	}
	return nil
}

// export applies the Cluster's ClusterProfile: its spec, then its status
// through the status subresource.
func (r *Reconciler) export(ctx context.Context, c *multiclusterv1alpha1.Cluster) error {
	want := clusterinventory.ProfileOf(c, r.Namespace, r.connection(ctx, c))
	if err := controllerutil.SetOwnerReference(c, want, r.Client.Scheme()); err != nil {
		return fmt.Errorf("failed to own ClusterProfile %s by its Cluster: %w", c.Name, err)
	}
	full, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		return fmt.Errorf("failed to convert ClusterProfile %s: %w", c.Name, err)
	}
	spec, err := manifest.ForApply(want)
	if err != nil {
		return err
	}
	if err := r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(spec), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to apply ClusterProfile %s/%s: %w", r.Namespace, c.Name, err)
	}
	status := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": want.APIVersion, "kind": want.Kind,
		"metadata": map[string]any{"name": c.Name, "namespace": r.Namespace},
		"status":   full["status"],
	}}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(status), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to apply the status of ClusterProfile %s/%s: %w", r.Namespace, c.Name, err)
	}
	return nil
}

// connection reads where the member is from its kubeconfig Secret; nil
// when it cannot be read (the profile then has no access provider).
func (r *Reconciler) connection(ctx context.Context, c *multiclusterv1alpha1.Cluster) *clusterinventory.Connection {
	ref := c.Spec.KubeconfigSecretRef
	if ref.Namespace == "" {
		ref.Namespace = r.Namespace
	}
	if ref.Key == "" {
		ref.Key = inventory.DefaultKubeconfigKey
	}
	secret := &corev1.Secret{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, secret); err != nil {
		return nil
	}
	cfg, _, err := inventory.RESTConfigFromSecret(secret, ref.Key)
	if err != nil {
		return nil
	}
	return &clusterinventory.Connection{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, TLSServerName: cfg.ServerName, Secret: ref}
}

// importProfile applies the Cluster of another manager's ClusterProfile,
// unless a Cluster of that name that is not from it exists.
func (r *Reconciler) importProfile(ctx context.Context, p *clusterinventory.ClusterProfile, existing *multiclusterv1alpha1.Cluster) error {
	if !r.Import {
		return nil
	}
	key := p.Namespace + "/" + p.Name
	if existing != nil && existing.Annotations[AnnotationClusterProfile] != key {
		r.warn(p, "ClusterExists", "Cluster %q exists and was not made from this ClusterProfile; it is left as it is", p.Name)
		return nil
	}
	want, err := clusterinventory.ClusterOf(p)
	if err != nil {
		// Nothing to retry until the profile changes, which requeues it.
		r.warn(p, ReasonUnsupportedAccessProvider, "%s", err.Error())
		return nil
	}
	want.Annotations = map[string]string{AnnotationClusterProfile: key}
	u, err := manifest.ForApply(want)
	if err != nil {
		return err
	}
	if err := r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to apply Cluster %q from ClusterProfile %s: %w", p.Name, key, err)
	}
	return nil
}

func (r *Reconciler) warn(p *clusterinventory.ClusterProfile, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(p, nil, corev1.EventTypeWarning, reason, "Import", format, args...)
	}
}
