package cloudprovisioner

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/workload"
)

// cloudRead is what one period reads of the joined cloud cluster: its
// nodes and pods, listed once and shared by the observation and the
// drains.
type cloudRead struct {
	client client.Client
	nodes  []corev1.Node
	pods   []corev1.Pod
}

// readCloud lists the nodes and pods of cp's joined cloud cluster, from
// the member's informer cache; nil when it has not joined.
func (r *Reconciler) readCloud(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner) (*cloudRead, error) {
	name := string(cp.Spec.CloudClusterName)
	m, ok := r.Inventory.Member(name)
	if !ok {
		return nil, nil
	}
	var nodes corev1.NodeList
	if err := m.Client.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("failed to list the nodes of cloud cluster %q: %w", name, err)
	}
	var pods corev1.PodList
	if err := m.Client.List(ctx, &pods); err != nil {
		return nil, fmt.Errorf("failed to list the pods of cloud cluster %q: %w", name, err)
	}
	return &cloudRead{client: m.Client, nodes: nodes.Items, pods: pods.Items}, nil
}

// observe gathers what the provisioner's pass reads (provision.Input), as
// the simulator does: MultiClusterDeployments and MultiClusterJobs alike,
// the member clusters, and the cloud cluster's nodes in their conditions
// (Ready, cordoned, draining, when they registered), in the phase
// provision.PhaseOf gives it.
func (r *Reconciler) observe(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, st cloud.Status, spec cloud.Spec, flavors []provision.Flavor, cr *cloudRead) (provision.Input, error) {
	in := provision.Input{Now: r.now()}
	wls, err := r.workloads(ctx)
	if err != nil {
		return provision.Input{}, err
	}
	in.Workloads = wls
	for _, c := range r.Inventory.Snapshot(nil).Clusters {
		if !c.Cloud {
			in.Members = append(in.Members, provision.Member{Ready: c.Ready, Nodes: c.Nodes})
		}
	}
	if !st.Exists {
		return in, nil
	}
	name := string(cp.Spec.CloudClusterName)
	m, joined := r.Inventory.Member(name)
	// Ready once (status.provisionedTime), and its member NotReady or
	// unread now, is Unreachable.
	reachable := cp.Status.Phase == multiclusterv1alpha1.PhaseReady && joined && cr != nil
	in.Cloud = &provision.Cloud{Phase: provision.PhaseOf(cp.Status.ProvisionedTime != nil, reachable)}
	switch in.Cloud.Phase {
	case provision.Unreachable:
		return in, nil
	case provision.Provisioning:
		// Being created: every worker asked for is coming, so that the
		// predictive mode grows the pools only beyond them, and a retired
		// pool's count toward maxNodes.
		in.Cloud.Nodes = append(coming(spec, flavors, nil), retiredWorkers(spec)...)
		return in, nil
	}
	in.Cloud.Workloads = m.Workloads()
	registered := map[string]int32{}
	for _, n := range nodeStates(cr) {
		registered[n.Flavor]++
		in.Cloud.Nodes = append(in.Cloud.Nodes, n)
	}
	in.Cloud.Nodes = append(in.Cloud.Nodes, coming(spec, flavors, registered)...)
	in.CloudPending = unschedulablePods(cr.pods)
	return in, nil
}

// retiredWorkers are the workers asked of spec's retired pools, by
// number: nodes of a flavor no longer configured, with no room.
func retiredWorkers(spec cloud.Spec) []provision.NodeState {
	var out []provision.NodeState
	for _, p := range spec.Pools {
		if !p.Retired {
			continue
		}
		for i := range p.Workers {
			out = append(out, provision.NodeState{Name: fmt.Sprintf("retired-%s-%d", p.Name, i), Flavor: p.Name})
		}
	}
	return out
}

// coming are the workers spec's pools ask for beyond those registered,
// per pool: nodes asked for and not registered yet, which count as
// coming so that they are not asked for twice. A retired pool's are not
// asked for.
func coming(spec cloud.Spec, flavors []provision.Flavor, registered map[string]int32) []provision.NodeState {
	var out []provision.NodeState
	for _, p := range spec.Pools {
		f, ok := provision.Config{Flavors: flavors}.Flavor(p.Name)
		for i := registered[p.Name]; ok && i < p.Workers; i++ {
			out = append(out, provision.NodeState{Name: fmt.Sprintf("coming-%s-%d", p.Name, i), Flavor: p.Name, Allocatable: f.Allocatable})
		}
	}
	return out
}

// nodeStates are the registered nodes of the cloud cluster as the
// provisioner sees them: their pool, readiness, cordon, drain and
// registration time, and the pods a drain would move.
func nodeStates(cr *cloudRead) []provision.NodeState {
	requested, moved := podsByNode(cr.pods)
	out := make([]provision.NodeState, 0, len(cr.nodes))
	for i := range cr.nodes {
		n := &cr.nodes[i]
		out = append(out, provision.NodeState{
			Name: n.Name, Flavor: poolOf(n),
			Allocatable: placement.NewResources(n.Status.Allocatable), Requested: requested[n.Name],
			Ready: nodeReady(n), Cordoned: n.Spec.Unschedulable, Draining: draining(n),
			Created: n.CreationTimestamp.Time, Pods: moved[n.Name],
		})
	}
	return out
}

// workloads lists the MultiClusterDeployments and MultiClusterJobs as the
// provisioner counts them, each converted by workload.New as its own
// controller does; one whose spec is invalid is not placed, and not
// counted.
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
		w, err := workload.New(workload.Key("MultiClusterDeployment", d.Namespace, d.Name), placement.KindDeployment, asked, &d.Spec.Template.Spec, d.Spec.Placement)
		if err != nil {
			continue
		}
		out = append(out, provision.WorkloadOf(w, asked, d.Status.UnplacedReplicas))
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
		asked := jobAsked(j)
		w, err := workload.New(workload.Key("MultiClusterJob", j.Namespace, j.Name), placement.KindJob, asked, &j.Spec.Template.Spec, j.Spec.Placement)
		if err != nil {
			continue
		}
		out = append(out, provision.WorkloadOf(w, asked, j.Status.UnplacedReplicas))
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

// poolOf is the pool a cloud node belongs to: its LabelNodePool label, or
// the one pool of a cloud cluster made before node pools
// (cloud.DefaultPool), whose nodes may predate the label.
func poolOf(n *corev1.Node) string {
	if p := n.Labels[multiclusterv1alpha1.LabelNodePool]; p != "" {
		return p
	}
	return cloud.DefaultPool
}

// nodeReady reports whether the kubelet reports n Ready.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podsByNode sums, per node, the requests of the pods bound to it and not
// finished (what takes its room, DaemonSet pods included), and lists the
// requests of those a drain moves (movesPod): a node whose only pods are
// DaemonSet or mirror pods is empty.
func podsByNode(pods []corev1.Pod) (requested map[string]placement.Resources, moved map[string][]placement.Resources) {
	requested, moved = map[string]placement.Resources{}, map[string][]placement.Resources{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || finished(p) {
			continue
		}
		req := placement.PodRequests(p)
		requested[p.Spec.NodeName] = requested[p.Spec.NodeName].Add(req)
		if movesPod(p) {
			moved[p.Spec.NodeName] = append(moved[p.Spec.NodeName], req)
		}
	}
	return requested, moved
}

// unschedulablePods returns the requests of the pods kube-scheduler found
// no node for.
func unschedulablePods(pods []corev1.Pod) []placement.Resources {
	var out []placement.Resources
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != "" || !p.DeletionTimestamp.IsZero() {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				out = append(out, placement.PodRequests(p))
			}
		}
	}
	return out
}

// movesPod reports whether a drain moves p off its node, as kubectl drain
// does: not a DaemonSet pod (it runs on every node and would come back),
// not a mirror pod (the kubelet runs it from a file), not finished. It is
// the one rule that says what counts as a node's pods, for consolidation
// and for the drain.
func movesPod(p *corev1.Pod) bool {
	if finished(p) {
		return false
	}
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	if owner := metav1.GetControllerOf(p); owner != nil && owner.Kind == "DaemonSet" {
		return false
	}
	return true
}

func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}
