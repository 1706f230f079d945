package cloudprovisioner

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
)

// deprovision removes the cloud cluster: the Cluster first, then the
// backend's cluster. It is called again on every reconcile until the
// backend reports the cluster gone; then the provisioner is Idle.
func (r *Reconciler) deprovision(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec cloud.Spec, st cloud.Status) error {
	cp.Status.Phase = multiclusterv1alpha1.PhaseDeprovisioning
	left, err := r.leave(ctx, cp)
	if err != nil || !left {
		return err
	}
	if st.Exists {
		if err := backend.Delete(ctx, spec); err != nil {
			return fmt.Errorf("failed to delete cloud cluster %q: %w", spec.Name, err)
		}
		if st, err = backend.Status(ctx, spec); err != nil {
			return fmt.Errorf("failed to read the status of cloud cluster %q: %w", spec.Name, err)
		}
		if st.Exists {
			setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonDeprovisioning, "waiting for the backend to remove the cloud cluster: "+st.Message)
			return nil
		}
	}
	r.Recorder.Eventf(cp, nil, "Normal", "Deprovisioned", "RemoveCluster", "cloud cluster %q is gone", spec.Name)
	cp.Status.Phase, cp.Status.DesiredNodes, cp.Status.Nodes, cp.Status.ReadyNodes, cp.Status.Pools = multiclusterv1alpha1.PhaseIdle, 0, 0, 0, nil
	cp.Status.EmptySince, cp.Status.ProvisionedTime = nil, nil
	r.forget(cp.UID)
	setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonNoCluster, "no cloud cluster: the member clusters hold every replica")
	return nil
}

// reconcileDelete removes the cloud cluster of a deleted CloudProvisioner
// before letting it go.
func (r *Reconciler) reconcileDelete(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(cp, Finalizer) {
		return ctrl.Result{}, nil
	}
	if backend, ok := r.Backends[cp.Spec.Backend]; ok {
		spec, _, err := r.cloudSpec(ctx, cp)
		if err != nil {
			// The credentials are needed to remove a real cloud cluster.
			return ctrl.Result{}, fmt.Errorf("failed to remove the cloud cluster of deleted CloudProvisioner %s/%s: %w", cp.Namespace, cp.Name, err)
		}
		st, err := backend.Status(ctx, spec)
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to read the status of cloud cluster %q: %w", spec.Name, err)
		}
		if err := r.deprovision(ctx, cp, backend, spec, st); err != nil {
			return ctrl.Result{}, err
		}
		if cp.Status.Phase != multiclusterv1alpha1.PhaseIdle {
			return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
		}
	} else if left, err := r.leave(ctx, cp); err != nil || !left {
		return ctrl.Result{RequeueAfter: 2 * time.Second}, err
	}
	controllerutil.RemoveFinalizer(cp, Finalizer)
	if err := r.Client.Update(ctx, cp); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to remove the finalizer of CloudProvisioner %s/%s: %w", cp.Namespace, cp.Name, err)
	}
	r.forget(cp.UID)
	return ctrl.Result{}, nil
}
