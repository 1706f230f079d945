package cloudprovisioner

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/provision"
)

// act carries a decision out through the backend and records it.
func (r *Reconciler) act(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec cloud.Spec, d provision.Decision) error {
	if d.Action == provision.None {
		return nil
	}
	nodes := int32(d.Nodes())
	switch d.Action {
	case provision.ProvisionCluster:
		spec.Workers = nodes
		cp.Status.ProvisioningStartedTime = &metav1.Time{Time: r.now()}
		cp.Status.ProvisionedTime = nil
		cp.Status.Phase = multiclusterv1alpha1.PhaseProvisioning
	case provision.AddNodes:
		spec.Workers += nodes
	case provision.RemoveNodes:
		nodes = int32(len(d.Remove))
		spec.Workers = max(spec.Workers-nodes, 0)
		spec.Remove = d.Remove
	case provision.RemoveCluster:
		cp.Status.Phase = multiclusterv1alpha1.PhaseDeprovisioning
		setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonDeprovisioning, d.Reason)
	}
	log.FromContext(ctx).Info("Cloud provisioner decided", "action", d.Action, "nodes", nodes, "remove", d.Remove, "reason", d.Reason)
	decisions.WithLabelValues(cp.Namespace, cp.Name, string(d.Action)).Inc()
	cp.Status.LastDecision = &multiclusterv1alpha1.ProvisionerDecision{
		Action: string(d.Action), Nodes: nodes, Reason: d.Reason, Time: metav1.Time{Time: r.now()},
	}
	r.Recorder.Eventf(cp, nil, "Normal", string(d.Action), string(d.Action), "%s", describe(spec, d))
	if d.Action == provision.RemoveCluster {
		return r.deprovision(ctx, cp, backend, spec, cloud.Status{Exists: true})
	}
	cp.Status.DesiredNodes = spec.Workers
	if err := backend.Ensure(ctx, spec); err != nil {
		return fmt.Errorf("failed to %s for cloud cluster %q: %w", strings.ToLower(string(d.Action)), spec.Name, err)
	}
	return nil
}

// describe puts a decision in words for an event.
func describe(spec cloud.Spec, d provision.Decision) string {
	switch d.Action {
	case provision.ProvisionCluster:
		return fmt.Sprintf("cloud cluster %q asked for with %d nodes: %s", spec.Name, d.Nodes(), d.Reason)
	case provision.AddNodes:
		return fmt.Sprintf("%d nodes added to cloud cluster %q (now %d): %s", d.Nodes(), spec.Name, spec.Workers, d.Reason)
	case provision.RemoveNodes:
		return fmt.Sprintf("nodes %v removed from cloud cluster %q (now %d): %s", d.Remove, spec.Name, spec.Workers, d.Reason)
	default:
		return fmt.Sprintf("cloud cluster %q removed: %s", spec.Name, d.Reason)
	}
}

// now is the controller's clock.
func (r *Reconciler) now() time.Time { return time.Now() }
