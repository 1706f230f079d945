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

// observe reads what the provisioner decides on, MultiClusterDeployments
// and MultiClusterJobs alike, and turns it into an Observation with
// provision.Observe, as the simulator does.
func (r *Reconciler) observe(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, st cloud.Status, spec cloud.Spec, flavors []provision.Flavor) (provision.Observation, error) {
	in := provision.Input{Now: r.now()}
	wls, err := r.workloads(ctx)
	if err != nil {
		return provision.Observation{}, err
	}
	in.Workloads = wls
	for _, c := range r.Inventory.Snapshot(nil).Clusters {
		if !c.Cloud {
			in.Members = append(in.Members, provision.Member{Ready: c.Ready, Nodes: c.Nodes})
		}
	}
	if !st.Exists {
		return provision.Observe(in), nil
	}
	in.Cloud = &provision.Cloud{Phase: provision.Provisioning}
	name := string(cp.Spec.CloudClusterName)
	m, joined := r.Inventory.Member(name)
	if cp.Status.Phase != multiclusterv1alpha1.PhaseReady || !joined {
		return provision.Observe(in), nil
	}
	in.Cloud.Phase = provision.Ready
	in.Cloud.Workloads = m.Workloads()
	pods := m.PodsByNode()
	registered := map[string]int32{}
	for _, n := range m.Nodes() {
		pool := poolOf(n, spec)
		registered[pool]++
		in.Cloud.Nodes = append(in.Cloud.Nodes, provision.NodeState{
			Name: n.Name, Flavor: pool, Allocatable: n.Allocatable, Requested: n.Requested, Ready: !n.Unschedulable, Pods: pods[n.Name],
		})
	}
	// Nodes asked for and not registered yet count as coming, so that
	// they are not asked for twice.
	for _, p := range spec.Pools {
		for i := registered[p.Name]; i < p.Workers; i++ {
			in.Cloud.Nodes = append(in.Cloud.Nodes, provision.NodeState{Name: fmt.Sprintf("coming-%s-%d", p.Name, i), Flavor: p.Name, Allocatable: allocatable(flavors, p.Name)})
		}
	}
	if in.CloudPending, err = unschedulablePods(ctx, m.Client); err != nil {
		return provision.Observation{}, fmt.Errorf("failed to list the pods of cloud cluster %q: %w", name, err)
	}
	return provision.Observe(in), nil
}

// workloads lists the MultiClusterDeployments and MultiClusterJobs as the
// provisioner counts them.
func (r *Reconciler) workloads(ctx context.Context) ([]provision.Workload, error) {
	var out []provision.Workload
	var mcds multiclusterv1alpha1.MultiClusterDeploymentList
	if err := r.Client.List(ctx, &mcds); err != nil {
		return nil, fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
	}
	for i := range mcds.Items {
		d := &mcds.Items[i]
		if !d.DeletionTimestamp.IsZero() {
			continue
		}
		asked := int32(1)
		if d.Spec.Replicas != nil {
			asked = *d.Spec.Replicas
		}
		out = append(out, provision.Workload{
			Requests: placement.PodRequests(&corev1.Pod{Spec: d.Spec.Template.Spec}),
			Asked:    asked, Unplaced: d.Status.UnplacedReplicas, Overflows: overflows(d.Spec.Placement),
		})
	}
	var jobs multiclusterv1alpha1.MultiClusterJobList
	if err := r.Client.List(ctx, &jobs); err != nil {
		return nil, fmt.Errorf("failed to list MultiClusterJobs: %w", err)
	}
	for i := range jobs.Items {
		j := &jobs.Items[i]
		if !j.DeletionTimestamp.IsZero() || j.Status.CompletionTime != nil {
			continue
		}
		out = append(out, provision.Workload{
			Requests: placement.PodRequests(&corev1.Pod{Spec: j.Spec.Template.Spec}),
			Asked:    jobAsked(j), Unplaced: j.Status.UnplacedReplicas, Overflows: overflows(j.Spec.Placement),
		})
	}
	return out, nil
}

// jobAsked is how many pods a job asks for now: its parallelism, at most
// the completions not done yet.
func jobAsked(j *multiclusterv1alpha1.MultiClusterJob) int32 {
	parallelism, completions := int32(1), int32(1)
	if j.Spec.Parallelism != nil {
		parallelism = *j.Spec.Parallelism
	}
	if j.Spec.Completions != nil {
		completions = *j.Spec.Completions
	} else if j.Spec.Parallelism != nil {
		completions = parallelism
	}
	return max(0, min(parallelism, completions-j.Status.Succeeded))
}

// overflows reports whether a workload's replicas may go beyond the
// clusters it runs in, and so to a cloud cluster.
func overflows(p multiclusterv1alpha1.Placement) bool {
	return (p.Bursting != nil && p.Bursting.Enabled) || (p.Substitution != nil && p.Substitution.Enabled)
}

// poolOf is the pool a cloud node belongs to: its LabelNodePool label, or
// the one pool of a CloudProvisioner with nodeSize.
func poolOf(n placement.Node, spec cloud.Spec) string {
	if p := n.Labels[multiclusterv1alpha1.LabelNodePool]; p != "" {
		return p
	}
	if len(spec.Pools) == 1 {
		return spec.Pools[0].Name
	}
	return cloud.DefaultPool
}

func allocatable(flavors []provision.Flavor, name string) placement.Resources {
	for _, f := range flavors {
		if f.Name == name {
			return f.Allocatable
		}
	}
	return placement.Resources{}
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
