package multiclusterdeployment

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// reconcileDelete removes mcd's Deployment from every connected member and
// then releases mcd. Members that are not connected are cleaned up by the
// orphan sweeper when they return.
func (r *Reconciler) reconcileDelete(ctx context.Context, mcd *multiclusterv1alpha1.MultiClusterDeployment) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(mcd, Finalizer) {
		return ctrl.Result{}, nil
	}
	owner := propagation.OwnerOfDeployment(mcd)
	remaining := 0
	for _, name := range r.Inventory.Members() {
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue
		}
		d := &appsv1.Deployment{}
		if err := m.Client.Get(ctx, client.ObjectKeyFromObject(mcd), d); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return ctrl.Result{}, fmt.Errorf("failed to read Deployment of %s in member %q: %w", mcd.Name, name, err)
		}
		if o, ok := propagation.OwnerOf(d); !ok || o.Kind != Kind || (o.UID != "" && o.UID != owner.UID) {
			continue // not ours
		}
		remaining++
		if !d.DeletionTimestamp.IsZero() {
			continue
		}
		if err := m.Client.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to delete Deployment of %s in member %q: %w", mcd.Name, name, err)
		}
		log.FromContext(ctx).Info("Deleted member Deployment", "member", name, "deployment", klog.KObj(d))
	}
	if remaining > 0 {
		// Wait until the members' caches no longer show them.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	r.Assumptions.Forget(Key(mcd.Namespace, mcd.Name))
	unplaced.DeleteLabelValues(mcd.Namespace, mcd.Name)
	controllerutil.RemoveFinalizer(mcd, Finalizer)
	if err := r.Client.Update(ctx, mcd); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("failed to remove finalizer of MultiClusterDeployment %s/%s: %w", mcd.Namespace, mcd.Name, err)
	}
	return ctrl.Result{}, nil
}
