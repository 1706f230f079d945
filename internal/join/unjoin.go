package join

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	clustercontroller "github.com/meridian-dev/meridian/internal/controller/cluster"
	"github.com/meridian-dev/meridian/internal/probe"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// DrainTaint is the taint Unjoin puts on a Cluster to move Meridian's
// workloads away from it.
const DrainTaint = "multicluster.meridian.dev/unjoin"

// UnjoinOptions say how to take a member away.
type UnjoinOptions struct {
	// Name of the Cluster.
	Name string
	// Namespace as given to Join; DefaultNamespace when empty.
	Namespace string
	// Drain taints the Cluster NoExecute first and waits until the member
	// holds none of Meridian's objects.
	Drain bool
	// Force goes on while the member still holds Meridian's objects (they
	// are deleted), for a Cluster Join did not make, and when the controller
	// does not release the Cluster in Timeout (its finalizer is removed).
	Force bool
	// Timeout bounds the drain and the controller's cleanup; 5 minutes
	// when zero.
	Timeout time.Duration
	// Poll is the time between two looks while waiting; 2 s when zero.
	Poll time.Duration
}

// Unjoin takes the member that member reaches out of the management
// cluster that management reaches, removing what Join made on both sides,
// and tells out what it did.
func Unjoin(ctx context.Context, management, member *rest.Config, o UnjoinOptions, out io.Writer) error {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.Poll == 0 {
		o.Poll = 2 * time.Second
	}
	mb, mg, err := connectBoth(management, member, out)
	if err != nil {
		return err
	}
	memberGone := false
	if _, err := mb.identity(ctx); err != nil {
		if !o.Force {
			return fmt.Errorf("%w (with --force, unjoin takes it out of the management cluster and leaves what is in it)", err)
		}
		memberGone = true
		fmt.Fprintf(out, "member: does not answer, so only the management cluster is cleaned up: %v\n", err)
	}
	c := &multiclusterv1alpha1.Cluster{}
	err = mg.c.Get(ctx, client.ObjectKey{Name: o.Name}, c)
	switch {
	case apierrors.IsNotFound(err):
		c = nil
	case err != nil:
		return fmt.Errorf("failed to read Cluster %q: %w", o.Name, err)
	case c.Labels[multiclusterv1alpha1.LabelJoinedCluster] != o.Name && !o.Force:
		return fmt.Errorf("%w: Cluster %q has no label %s=%s; delete it yourself, or pass --force", ErrNotJoined, o.Name, multiclusterv1alpha1.LabelJoinedCluster, o.Name)
	}
	switch {
	case c != nil && memberGone:
		if err := release(ctx, mg, c, out); err != nil {
			return err
		}
	case c != nil:
		if o.Drain {
			if err := drain(ctx, mg, mb, c, o, out); err != nil {
				return err
			}
		}
		left, err := meridianObjects(ctx, mb.c)
		if err != nil {
			return err
		}
		if len(left) > 0 && !o.Force {
			return fmt.Errorf("%w: %s; move them away first (--drain taints the Cluster %s:NoExecute and waits), or pass --force to delete them", ErrStillRunning, summary(left), DrainTaint)
		}
		if err := deleteCluster(ctx, mg, mb, c, o, out); err != nil {
			return err
		}
	}
	if err := removeJoinedSecrets(ctx, mg, o.Name, out); err != nil {
		return err
	}
	if memberGone {
		fmt.Fprintf(out, "member: what meridian join made there stays (objects labelled %s=%s); run meridian unjoin again when it answers\n", multiclusterv1alpha1.LabelJoinedCluster, o.Name)
		return nil
	}
	if err := removeMadeNamespaces(ctx, mb, member, out); err != nil {
		return err
	}
	return removeJoined(ctx, mb, o, member, out)
}

// meridianObjects lists what Meridian made in the member, by kind.
func meridianObjects(ctx context.Context, c client.Client) ([]client.Object, error) {
	var out []client.Object
	for _, list := range propagation.MemberLists() {
		err := c.List(ctx, list, client.MatchingLabels{multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian})
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("failed to list the member's %s: %w", strings.TrimSuffix(list.GetObjectKind().GroupVersionKind().Kind, "List"), err)
		}
		kind := strings.TrimSuffix(list.GetObjectKind().GroupVersionKind().Kind, "List")
		if err := meta.EachListItem(list, func(o runtime.Object) error {
			obj := o.(client.Object)
			// A ReplicaSet of a member Deployment carries its labels but
			// is the member's: it goes with the Deployment.
			if metav1.GetControllerOf(obj) != nil {
				return nil
			}
			obj.GetObjectKind().SetGroupVersionKind(list.GetObjectKind().GroupVersionKind().GroupVersion().WithKind(kind))
			out = append(out, obj)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// summary names up to five objects and counts the rest.
func summary(objs []client.Object) string {
	names := make([]string, 0, 5)
	for _, o := range objs[:min(5, len(objs))] {
		names = append(names, describe(o))
	}
	s := strings.Join(names, ", ")
	if len(objs) > 5 {
		s += fmt.Sprintf(" and %d more", len(objs)-5)
	}
	return s
}

// drain taints the Cluster NoExecute, so that placement moves every
// workload away, and waits until the member holds none of Meridian's
// objects, saying how many are left.
func drain(ctx context.Context, mg, mb *cluster, c *multiclusterv1alpha1.Cluster, o UnjoinOptions, out io.Writer) error {
	if !slices.ContainsFunc(c.Spec.Taints, func(t corev1.Taint) bool { return t.Key == DrainTaint }) {
		before := c.DeepCopy()
		c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: DrainTaint, Effect: corev1.TaintEffectNoExecute})
		if err := mg.c.Patch(ctx, c, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("failed to taint Cluster %q %s:NoExecute: %w", c.Name, DrainTaint, err)
		}
		fmt.Fprintf(out, "management cluster: Cluster %s tainted %s:NoExecute\n", c.Name, DrainTaint)
	}
	last := -1
	err := wait.PollUntilContextTimeout(ctx, o.Poll, o.Timeout, true, func(ctx context.Context) (bool, error) {
		left, err := meridianObjects(ctx, mb.c)
		if err != nil {
			return false, err
		}
		if len(left) != last {
			fmt.Fprintf(out, "member: %d of Meridian's objects left\n", len(left))
			last = len(left)
		}
		return len(left) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%w: the member still holds Meridian's objects %v after the drain began (is meridian controller running?); Cluster %s keeps its taint %s:NoExecute until it is unjoined or the taint is removed (kubectl edit cluster %s): %w", ErrCleanupTimeout, o.Timeout, c.Name, DrainTaint, c.Name, err)
	}
	return nil
}

// deleteCluster deletes the Cluster and waits for the controller to release
// it; with Force, a Cluster still held after Timeout loses the controller's
// finalizer. Then it checks the member: what the controller could not
// remove (it could not reach the member) fails the unjoin, naming it, or
// with Force is deleted here.
func deleteCluster(ctx context.Context, mg, mb *cluster, c *multiclusterv1alpha1.Cluster, o UnjoinOptions, out io.Writer) error {
	if err := mg.c.Delete(ctx, c); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete Cluster %q: %w", c.Name, err)
	}
	fmt.Fprintf(out, "management cluster: Cluster %s deleted, waiting for the controller to clean the member up\n", c.Name)
	err := wait.PollUntilContextTimeout(ctx, o.Poll, o.Timeout, true, func(ctx context.Context) (bool, error) {
		err := mg.c.Get(ctx, client.ObjectKeyFromObject(c), &multiclusterv1alpha1.Cluster{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	switch {
	case err != nil && !o.Force:
		return fmt.Errorf("%w: Cluster %q is still there %v after its deletion (is meridian controller running? --force removes its finalizer and Meridian's objects from the member): %w", ErrCleanupTimeout, c.Name, o.Timeout, err)
	case err != nil:
		if err := release(ctx, mg, c, out); err != nil {
			return err
		}
	}
	left, err := meridianObjects(ctx, mb.c)
	if err != nil {
		return err
	}
	if len(left) > 0 && !o.Force {
		return fmt.Errorf("%w: the controller released Cluster %q but left %s in the member (it could not reach it); run meridian unjoin %s --force to delete them from here", ErrStillRunning, c.Name, summary(left), c.Name)
	}
	for _, obj := range left {
		if err := mb.c.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("failed to delete %s from the member: %w", describe(obj), err)
		}
		fmt.Fprintf(out, "member: %s deleted\n", describe(obj))
	}
	// The prober's targets, which the controller wrote.
	targets := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: probe.TargetsConfigMap}}
	if err := mb.c.Delete(ctx, targets); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete the prober's targets from the member: %w", err)
	}
	return nil
}

// release removes the controller's finalizer from a deleted Cluster, so that
// it goes without the controller's cleanup of the member.
func release(ctx context.Context, mg *cluster, c *multiclusterv1alpha1.Cluster, out io.Writer) error {
	if err := mg.c.Delete(ctx, c); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete Cluster %q: %w", c.Name, err)
	}
	held := &multiclusterv1alpha1.Cluster{}
	if err := mg.c.Get(ctx, client.ObjectKeyFromObject(c), held); err != nil {
		return client.IgnoreNotFound(err)
	}
	before := held.DeepCopy()
	if !controllerutil.RemoveFinalizer(held, clustercontroller.Finalizer) {
		return nil
	}
	if err := mg.c.Patch(ctx, held, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to remove the finalizer of Cluster %q: %w", c.Name, err)
	}
	fmt.Fprintf(out, "management cluster: Cluster %s released without the controller's cleanup\n", c.Name)
	return nil
}

// removeJoinedSecrets deletes the management cluster's kubeconfig Secrets
// Join made for the Cluster, found by their labels in any namespace.
func removeJoinedSecrets(ctx context.Context, mg *cluster, name string, out io.Writer) error {
	var list corev1.SecretList
	if err := mg.c.List(ctx, &list, mine(name)); err != nil {
		return fmt.Errorf("failed to list the Secrets meridian join made for %q: %w", name, err)
	}
	for i := range list.Items {
		if err := deleteOne(ctx, mg, &list.Items[i], out); err != nil {
			return err
		}
	}
	return nil
}

// mine selects what Join made for the Cluster name.
func mine(name string) client.MatchingLabels {
	return client.MatchingLabels{multiclusterv1alpha1.LabelJoinedCluster: name, multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByJoin}
}

// removeJoined deletes what Join made in the member: the prober, the
// bindings, roles and ServiceAccount, and the namespace when Join created it
// and it holds nothing else now.
func removeJoined(ctx context.Context, mb *cluster, o UnjoinOptions, cfg *rest.Config, out io.Writer) error {
	var madeNamespaces []*corev1.Namespace
	for _, list := range []client.ObjectList{&appsv1.DeploymentList{}, &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{}, &admissionregistrationv1.ValidatingAdmissionPolicyList{}, &rbacv1.ClusterRoleBindingList{}, &rbacv1.RoleBindingList{}, &rbacv1.ClusterRoleList{}, &rbacv1.RoleList{}, &corev1.ServiceAccountList{}, &corev1.NamespaceList{}} {
		if err := mb.c.List(ctx, list, mine(o.Name)); err != nil {
			return fmt.Errorf("failed to list the member's %T made by meridian join: %w", list, err)
		}
		err := meta.EachListItem(list, func(obj runtime.Object) error {
			if ns, ok := obj.(*corev1.Namespace); ok {
				if ns.Annotations[multiclusterv1alpha1.AnnotationCreatedByJoin] == "true" && ns.DeletionTimestamp.IsZero() {
					madeNamespaces = append(madeNamespaces, ns)
				}
				return nil
			}
			return deleteOne(ctx, mb, obj.(client.Object), out)
		})
		if err != nil {
			return err
		}
	}
	for _, ns := range madeNamespaces {
		// What Join made there is going (the prober's pods with their
		// Deployment), and the prober's own report.
		joined := func(gvr schema.GroupVersionResource, o metav1.Object) bool {
			return o.GetLabels()[multiclusterv1alpha1.LabelJoinedCluster] == ns.Labels[multiclusterv1alpha1.LabelJoinedCluster] ||
				(gvr.Resource == "configmaps" && o.GetName() == probe.ProbeConfigMap)
		}
		if err := deleteIfEmpty(ctx, mb, cfg, ns, "meridian join", joined, out); err != nil {
			return err
		}
	}
	return nil
}

// deleteOne deletes obj from c's cluster and says so.
func deleteOne(ctx context.Context, c *cluster, obj client.Object, out io.Writer) error {
	err := c.c.Delete(ctx, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to delete %s %s from the %s: %w", kindOf(obj), klog.KObj(obj), c.name, err)
	}
	_, err = fmt.Fprintf(out, "%s: %s %s deleted\n", c.name, kindOf(obj), klog.KObj(obj))
	return err
}

// kindOf names a typed object's kind.
func kindOf(obj client.Object) string {
	t := fmt.Sprintf("%T", obj)
	return t[strings.LastIndex(t, ".")+1:]
}
