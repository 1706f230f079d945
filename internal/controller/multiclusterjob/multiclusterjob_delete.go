package multiclusterjob

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/workload"
)

// reconcileDelete deletes the member Jobs with their pods, then releases mcj.
func (r *Reconciler) reconcileDelete(ctx context.Context, mcj *multiclusterv1alpha1.MultiClusterJob) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(mcj, Finalizer) {
		return ctrl.Result{}, nil
	}
	members, err := r.observe(ctx, &Subject{MCJ: mcj, Owner: propagation.OwnerOfJob(mcj)})
	var waiting *notObservedError
	if errors.As(err, &waiting) {
		return ctrl.Result{RequeueAfter: memberWait}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	remaining := 0
	for name, mj := range members {
		if mj.job == nil {
			continue
		}
		remaining++
		if !mj.job.DeletionTimestamp.IsZero() {
			continue
		}
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue
		}
		if err := m.Client.Delete(ctx, mj.job, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to delete Job of %s in member %q: %w", mcj.Name, name, err)
		}
		log.FromContext(ctx).Info("Deleted member Job", "member", name, "job", klog.KObj(mj.job))
	}
	if remaining > 0 {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	r.Assumptions.Forget(workload.Key(Kind, mcj.Namespace, mcj.Name))
	controllerutil.RemoveFinalizer(mcj, Finalizer)
	return ctrl.Result{}, client.IgnoreNotFound(r.Client.Update(ctx, mcj))
}
