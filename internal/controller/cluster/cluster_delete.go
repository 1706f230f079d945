package cluster

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/probe"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// reconcileDelete removes Meridian's objects from the member, forgets it,
// and releases the Cluster. A member that cannot be reached within
// CleanupTimeout does not hold the deletion: its objects are left, and a
// warning event says so.
func (r *Reconciler) reconcileDelete(ctx context.Context, c *multiclusterv1alpha1.Cluster) error {
	if !controllerutil.ContainsFinalizer(c, Finalizer) {
		r.Inventory.Disconnect(c.Name)
		return nil
	}
	if err := r.cleanupMember(ctx, c); err != nil {
		log.FromContext(ctx).Error(err, "Failed to remove Meridian's objects from member; leaving them", "cluster", klog.KObj(c))
		if r.Recorder != nil {
			r.Recorder.Eventf(c, nil, corev1.EventTypeWarning, "CleanupFailed", "Delete", "%s", err.Error())
		}
	}
	r.Inventory.Disconnect(c.Name)
	controllerutil.RemoveFinalizer(c, Finalizer)
	if err := r.Client.Update(ctx, c); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to remove finalizer from Cluster %q: %w", c.Name, err)
	}
	return nil
}

func (r *Reconciler) cleanupMember(ctx context.Context, c *multiclusterv1alpha1.Cluster) error {
	member, ok := r.Inventory.Member(c.Name)
	if !ok {
		return fmt.Errorf("member %q is not connected", c.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, r.CleanupTimeout)
	defer cancel()
	owned := client.MatchingLabels{multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian}
	background := client.PropagationPolicy(metav1.DeletePropagationBackground)
	var errs []error
	// Listed from the API server: the member's cache may not watch a kind.
	for _, list := range propagation.MemberLists() {
		err := member.APIReader.List(ctx, list, owned)
		if meta.IsNoMatchError(err) {
			continue // the member does not serve this kind (an optional CRD)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to list %s of Meridian in member %q: %w", list.GetObjectKind().GroupVersionKind().Kind, c.Name, err))
			continue
		}
		err = meta.EachListItem(list, func(o runtime.Object) error {
			obj := o.(client.Object)
			if err := member.Client.Delete(ctx, obj, background); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("failed to delete %s %s from member %q: %w", obj.GetObjectKind().GroupVersionKind().Kind, klog.KObj(obj), c.Name, err)
			}
			log.FromContext(ctx).Info("Deleted Meridian's object from a member being removed", "member", c.Name, "kind", obj.GetObjectKind().GroupVersionKind().Kind, "object", klog.KObj(obj))
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	// The prober's targets, which the controller wrote.
	targets := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: probe.TargetsConfigMap}}
	if err := member.Client.Delete(ctx, targets); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("failed to delete the prober's targets from member %q: %w", c.Name, err))
	}
	return errors.Join(errs...)
}
