package cloudprovisioner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/provision"
)

// act carries a decision out through the backend and records it. The
// nodes a RemoveNodes drains (Decision.Drain) are cordoned here, and
// removed by continueDrains once empty.
func (r *Reconciler) act(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec cloud.Spec, st cloud.Status, obs provision.Observation, d provision.Decision, cr *cloudRead) error {
	switch d.Action {
	case provision.None:
		return nil
	case provision.ProvisionCluster:
		for i := range spec.Pools {
			spec.Pools[i].Workers = 0
		}
		addNodes(&spec, d.Add)
		cp.Status.ProvisioningStartedTime = &metav1.Time{Time: r.now()}
		cp.Status.ProvisionedTime = nil
		cp.Status.Phase = multiclusterv1alpha1.PhaseProvisioning
	case provision.AddNodes:
		addNodes(&spec, d.Add)
	case provision.RemoveNodes:
		if err := r.startDrains(ctx, cp, cr, d.Drain); err != nil {
			return err
		}
		if len(d.Remove) == 0 {
			return nil
		}
		return r.removeNodes(ctx, cp, backend, &spec, st, obs, d)
	case provision.RemoveCluster:
		cp.Status.Phase = multiclusterv1alpha1.PhaseDeprovisioning
		setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonDeprovisioning, d.Reason)
		r.record(ctx, cp, spec, d)
		return r.deprovision(ctx, cp, backend, spec, cloud.Status{Exists: true})
	}
	r.record(ctx, cp, spec, d)
	recordPools(cp, spec, st)
	if err := r.persist(ctx, cp); err != nil {
		return err
	}
	if err := backend.Ensure(ctx, spec); err != nil {
		return fmt.Errorf("failed to %s for cloud cluster %q: %w", strings.ToLower(string(d.Action)), spec.Name, err)
	}
	return nil
}

// persist writes cp's status before the backend is asked: what is asked is
// recorded first (status.pools' desiredNodes and removing, which the next
// pass asks for again), so that a controller restarted between the two
// repeats the request instead of undoing it. The update carries cp's
// resourceVersion: when the stored status changed meanwhile, nothing is
// asked, and the next pass decides again.
func (r *Reconciler) persist(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner) error {
	cp.Status.ObservedGeneration = cp.Generation
	if err := r.Client.Status().Update(ctx, cp); err != nil {
		return fmt.Errorf("failed to record the request in the status of CloudProvisioner %s/%s before asking the backend: %w", cp.Namespace, cp.Name, err)
	}
	return nil
}

// removeNodes takes d.Remove out of their pools, records it and asks the
// backend: the decision's empty or broken nodes, and the drained ones.
func (r *Reconciler) removeNodes(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec *cloud.Spec, st cloud.Status, obs provision.Observation, d provision.Decision) error {
	removeFromPools(spec, obs, d.Remove)
	r.record(ctx, cp, *spec, d)
	recordPools(cp, *spec, st)
	if err := r.persist(ctx, cp); err != nil {
		return err
	}
	if err := backend.Ensure(ctx, *spec); err != nil {
		return fmt.Errorf("failed to remove nodes %v of cloud cluster %q: %w", d.Remove, spec.Name, err)
	}
	return nil
}

// record logs d, counts it, makes it the status's last decision and
// emits its event.
func (r *Reconciler) record(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, spec cloud.Spec, d provision.Decision) {
	nodes := int32(d.Nodes())
	if d.Action == provision.RemoveNodes {
		nodes = int32(len(d.Remove))
	}
	log.FromContext(ctx).Info("Cloud provisioner decided", "action", d.Action, "add", d.Add, "remove", d.Remove, "reason", d.Reason)
	decisions.WithLabelValues(cp.Namespace, cp.Name, string(d.Action)).Inc()
	cp.Status.LastDecision = &multiclusterv1alpha1.ProvisionerDecision{
		Action: multiclusterv1alpha1.ProvisionerAction(d.Action), Nodes: nodes, Reason: d.Reason, Time: metav1.Time{Time: r.now()},
	}
	r.Recorder.Eventf(cp, nil, "Normal", string(d.Action), string(d.Action), "%s", describe(spec, d))
}

// addNodes adds the new nodes of each group to its pool.
func addNodes(spec *cloud.Spec, add []provision.NodeGroup) {
	for _, g := range add {
		for i := range spec.Pools {
			if spec.Pools[i].Name == g.Flavor {
				spec.Pools[i].Workers += int32(g.Nodes)
			}
		}
	}
}

// removeFromPools takes the named nodes out of their pools.
func removeFromPools(spec *cloud.Spec, obs provision.Observation, names []string) {
	pool := map[string]string{}
	if obs.Cloud != nil {
		for _, n := range obs.Cloud.Nodes {
			pool[n.Name] = n.Flavor
		}
	}
	for _, name := range names {
		for i := range spec.Pools {
			p := &spec.Pools[i]
			// A node asked to go already is out of Workers: never twice.
			if p.Name == pool[name] && !slices.Contains(p.Remove, name) {
				p.Workers = max(p.Workers-1, 0)
				p.Remove = append(p.Remove, name)
			}
		}
	}
}

// describe puts a decision in words for an event.
func describe(spec cloud.Spec, d provision.Decision) string {
	switch d.Action {
	case provision.ProvisionCluster:
		return fmt.Sprintf("cloud cluster %q asked for with %s: %s", spec.Name, provision.Groups(d.Add), d.Reason)
	case provision.AddNodes:
		return fmt.Sprintf("%s added to cloud cluster %q (now %d): %s", provision.Groups(d.Add), spec.Name, spec.Workers(), d.Reason)
	case provision.RemoveNodes:
		return fmt.Sprintf("nodes %v removed from cloud cluster %q (now %d): %s", d.Remove, spec.Name, spec.Workers(), d.Reason)
	default:
		return fmt.Sprintf("cloud cluster %q removed: %s", spec.Name, d.Reason)
	}
}

// now is the controller's clock.
func (r *Reconciler) now() time.Time { return r.Clock.Now() }
