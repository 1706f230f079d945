package cloudprovisioner

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
)

// observe reads what the provisioner decides on: the replicas that fit
// nowhere, the demand, the members' capacity and the cloud cluster.
func (r *Reconciler) observe(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, st cloud.Status) (provision.Observation, error) {
	o := provision.Observation{Now: r.now()}
	var mcds multiclusterv1alpha1.MultiClusterDeploymentList
	if err := r.Client.List(ctx, &mcds); err != nil {
		return o, fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	for i := range mcds.Items {
		d := &mcds.Items[i]
		if !d.DeletionTimestamp.IsZero() {
			continue
		}
		req := placement.PodRequests(&corev1.Pod{Spec: d.Spec.Template.Spec})
		asked := int64(1)
		if d.Spec.Replicas != nil {
			asked = int64(*d.Spec.Replicas)
		}
		o.Demand.MilliCPU += asked * req.MilliCPU
		o.Demand.Memory += asked * req.Memory
		if !overflows(d) {
			// Its replicas stay in one cluster: a cloud cluster would
			// not take them.
			continue
		}
		for range d.Status.UnplacedReplicas {
			o.Unschedulable = append(o.Unschedulable, req)
		}
	}
	name := string(cp.Spec.CloudClusterName)
	for _, c := range r.Inventory.Snapshot(nil).Clusters {
		if c.Cloud || !c.Ready {
			continue
		}
		for _, n := range c.Nodes {
			if !n.Unschedulable {
				o.Capacity.MilliCPU += n.Allocatable.MilliCPU
				o.Capacity.Memory += n.Allocatable.Memory
			}
		}
	}
	if !st.Exists {
		return o, nil
	}
	o.Cloud = &provision.Cloud{Phase: provision.Provisioning}
	m, joined := r.Inventory.Member(name)
	if cp.Status.Phase != multiclusterv1alpha1.PhaseReady || !joined {
		return o, nil
	}
	o.Cloud.Phase = provision.Ready
	o.Cloud.Workloads = m.Workloads()
	pods := m.PodsByNode()
	for _, n := range m.Nodes() {
		o.Cloud.Nodes = append(o.Cloud.Nodes, provision.NodeState{
			Name: n.Name, Allocatable: n.Allocatable, Requested: n.Requested, Ready: !n.Unschedulable, Pods: pods[n.Name],
		})
	}
	// Nodes asked for and not registered yet count as coming, so that
	// they are not asked for twice.
	for i := int32(len(o.Cloud.Nodes)); i < cp.Status.DesiredNodes; i++ {
		o.Cloud.Nodes = append(o.Cloud.Nodes, provision.NodeState{Name: fmt.Sprintf("coming-%d", i), Allocatable: flavor(cp).Allocatable})
	}
	pending, err := unschedulablePods(ctx, m.Client)
	if err != nil {
		return o, fmt.Errorf("failed to list the pods of cloud cluster %q: %w", name, err)
	}
	o.Unschedulable = append(o.Unschedulable, pending...)
	return o, nil
}

// overflows reports whether d's replicas may go beyond the clusters it
// runs in, and so to a cloud cluster.
func overflows(d *multiclusterv1alpha1.MultiClusterDeployment) bool {
	p := d.Spec.Placement
	return (p.Bursting != nil && p.Bursting.Enabled) || (p.Substitution != nil && p.Substitution.Enabled)
}

// unschedulablePods returns the requests of the pods kube-scheduler found
// no node for.
func unschedulablePods(ctx context.Context, c client.Reader) ([]placement.Resources, error) {
	var pods corev1.PodList
	if err := c.List(ctx, &pods); err != nil {
		return nil, err
	}
	var out []placement.Resources
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName != "" || !p.DeletionTimestamp.IsZero() {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				out = append(out, placement.PodRequests(p))
			}
		}
	}
	return out, nil
}
