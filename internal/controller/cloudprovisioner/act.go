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

// act carries a decision out through the backend and records it. Nodes
// that consolidation removes with pods on them are drained first (drain.go)
// and only asked of the backend once empty.
func (r *Reconciler) act(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec cloud.Spec, st cloud.Status, obs provision.Observation, d provision.Decision) error {
	if d.Action == provision.None {
		return nil
	}
	nodes := int32(d.Nodes())
	switch d.Action {
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
		empty, busy := splitByPods(obs, d.Remove)
		if err := r.startDrains(ctx, cp, busy); err != nil {
			return err
		}
		if len(empty) == 0 {
			return nil
		}
		d.Remove = empty
		nodes = int32(len(empty))
		removeNodes(&spec, obs, empty)
	case provision.RemoveCluster:
		cp.Status.Phase = multiclusterv1alpha1.PhaseDeprovisioning
		setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonDeprovisioning, d.Reason)
	}
	log.FromContext(ctx).Info("Cloud provisioner decided", "action", d.Action, "add", d.Add, "remove", d.Remove, "reason", d.Reason)
	decisions.WithLabelValues(cp.Namespace, cp.Name, string(d.Action)).Inc()
	cp.Status.LastDecision = &multiclusterv1alpha1.ProvisionerDecision{
		Action: string(d.Action), Nodes: nodes, Reason: d.Reason, Time: metav1.Time{Time: r.now()},
	}
	r.Recorder.Eventf(cp, nil, "Normal", string(d.Action), string(d.Action), "%s", describe(spec, d))
	if d.Action == provision.RemoveCluster {
		return r.deprovision(ctx, cp, backend, spec, cloud.Status{Exists: true})
	}
	recordPools(cp, spec, st)
	if err := backend.Ensure(ctx, spec); err != nil {
		return fmt.Errorf("failed to %s for cloud cluster %q: %w", strings.ToLower(string(d.Action)), spec.Name, err)
	}
	return nil
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

// removeNodes takes the named nodes out of their pools.
func removeNodes(spec *cloud.Spec, obs provision.Observation, names []string) {
	pool := map[string]string{}
	if obs.Cloud != nil {
		for _, n := range obs.Cloud.Nodes {
			pool[n.Name] = n.Flavor
		}
	}
	for _, name := range names {
		for i := range spec.Pools {
			p := &spec.Pools[i]
			if p.Name == pool[name] {
				p.Workers = max(p.Workers-1, 0)
				p.Remove = append(p.Remove, name)
			}
		}
	}
}

// splitByPods splits the named nodes into those without pods and those
// with pods, by what was observed.
func splitByPods(obs provision.Observation, names []string) (empty, busy []string) {
	pods := map[string]int{}
	if obs.Cloud != nil {
		for _, n := range obs.Cloud.Nodes {
			pods[n.Name] = len(n.Pods)
		}
	}
	for _, name := range names {
		if pods[name] > 0 {
			busy = append(busy, name)
		} else {
			empty = append(empty, name)
		}
	}
	return empty, busy
}

// describe puts a decision in words for an event.
func describe(spec cloud.Spec, d provision.Decision) string {
	switch d.Action {
	case provision.ProvisionCluster:
		return fmt.Sprintf("cloud cluster %q asked for with %s: %s", spec.Name, groups(d.Add), d.Reason)
	case provision.AddNodes:
		return fmt.Sprintf("%s added to cloud cluster %q (now %d): %s", groups(d.Add), spec.Name, spec.Workers(), d.Reason)
	case provision.RemoveNodes:
		return fmt.Sprintf("nodes %v removed from cloud cluster %q (now %d): %s", d.Remove, spec.Name, spec.Workers(), d.Reason)
	default:
		return fmt.Sprintf("cloud cluster %q removed: %s", spec.Name, d.Reason)
	}
}

// groups puts new nodes in words: "2 m1-large and 1 m1-xlarge nodes".
func groups(gs []provision.NodeGroup) string {
	parts := make([]string, 0, len(gs))
	for _, g := range gs {
		parts = append(parts, fmt.Sprintf("%d %s", g.Nodes, g.Flavor))
	}
	return strings.Join(parts, ", ") + " nodes"
}

// now is the controller's clock.
func (r *Reconciler) now() time.Time { return r.Clock.Now() }
