package virtualnode

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// LeaseNamespace holds the nodes' heartbeat Leases, as kubelet's.
const LeaseNamespace = corev1.NamespaceNodeLease

// ensureNode makes node exist as planned (existing is the current object,
// nil when there is none), keeps labels others added, and renews its
// Lease and Ready heartbeat.
func (r *NodeReconciler) ensureNode(ctx context.Context, want *corev1.Node, existing *corev1.Node, now time.Time) error {
	node := existing
	if node == nil {
		node = &corev1.Node{ObjectMeta: want.ObjectMeta, Spec: want.Spec}
		if err := r.Client.Create(ctx, node); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("failed to create virtual node %q: %w", want.Name, err)
			}
			node = &corev1.Node{}
			if err := r.Client.Get(ctx, client.ObjectKey{Name: want.Name}, node); err != nil {
				return fmt.Errorf("failed to get virtual node %q: %w", want.Name, err)
			}
		}
		log.FromContext(ctx).Info("Created virtual node", "node", klog.KObj(node))
	}

	before := node.DeepCopy()
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	for k, v := range want.Labels {
		node.Labels[k] = v
	}
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	for k, v := range want.Annotations {
		node.Annotations[k] = v
	}
	node.Spec.Taints = want.Spec.Taints
	node.Spec.Unschedulable = false
	if !equality.Semantic.DeepEqual(before.ObjectMeta, node.ObjectMeta) || !equality.Semantic.DeepEqual(before.Spec, node.Spec) {
		if err := r.Client.Patch(ctx, node, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("failed to update virtual node %q: %w", node.Name, err)
		}
	}

	if err := r.patchNodeStatus(ctx, node, want, now); err != nil {
		return err
	}
	return r.renewLease(ctx, node, now)
}

// patchNodeStatus writes want's status with fresh heartbeat times when the
// Ready condition, the capacity or the kubelet endpoint changed, or the
// last heartbeat is older than NodeStatusInterval.
func (r *NodeReconciler) patchNodeStatus(ctx context.Context, node *corev1.Node, want *corev1.Node, now time.Time) error {
	wantReady := want.Status.Conditions[0]
	var cur *corev1.NodeCondition
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			cur = &node.Status.Conditions[i]
		}
	}
	fresh := cur != nil && cur.Status == wantReady.Status && cur.Reason == wantReady.Reason &&
		now.Sub(cur.LastHeartbeatTime.Time) < r.Options.NodeStatusInterval &&
		equality.Semantic.DeepEqual(node.Status.Allocatable, want.Status.Allocatable) &&
		equality.Semantic.DeepEqual(node.Status.Addresses, want.Status.Addresses) &&
		node.Status.DaemonEndpoints == want.Status.DaemonEndpoints
	if fresh {
		return nil
	}
	before := node.DeepCopy()
	ready := wantReady
	ready.LastHeartbeatTime = metav1.NewTime(now)
	ready.LastTransitionTime = metav1.NewTime(now)
	if cur != nil && cur.Status == ready.Status {
		ready.LastTransitionTime = cur.LastTransitionTime
	}
	node.Status.Capacity = want.Status.Capacity
	node.Status.Allocatable = want.Status.Allocatable
	node.Status.Phase = want.Status.Phase
	node.Status.NodeInfo = want.Status.NodeInfo
	node.Status.Addresses = want.Status.Addresses
	node.Status.DaemonEndpoints = want.Status.DaemonEndpoints
	node.Status.Conditions = []corev1.NodeCondition{ready}
	if err := r.Client.Status().Patch(ctx, node, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("failed to patch status of virtual node %q: %w", node.Name, err)
	}
	return nil
}

// renewLease renews the node's heartbeat Lease when a quarter of its
// duration passed, as kubelet does.
func (r *NodeReconciler) renewLease(ctx context.Context, node *corev1.Node, now time.Time) error {
	seconds := int32(r.Options.LeaseDuration / time.Second)
	lease := &coordinationv1.Lease{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: LeaseNamespace, Name: node.Name}, lease)
	switch {
	case apierrors.IsNotFound(err):
		holder := node.Name
		renew := metav1.NewMicroTime(now)
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: LeaseNamespace, Name: node.Name, OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
			}}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds, RenewTime: &renew},
		}
		if err := r.Client.Create(ctx, lease); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("failed to create lease of virtual node %q: %w", node.Name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("failed to get lease of virtual node %q: %w", node.Name, err)
	}
	if lease.Spec.RenewTime != nil && now.Sub(lease.Spec.RenewTime.Time) < r.Options.LeaseDuration/4-r.Options.LeaseDuration/20 {
		return nil
	}
	before := lease.DeepCopy()
	renew := metav1.NewMicroTime(now)
	lease.Spec.RenewTime = &renew
	lease.Spec.LeaseDurationSeconds = &seconds
	if err := r.Client.Patch(ctx, lease, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("failed to renew lease of virtual node %q: %w", node.Name, err)
	}
	return nil
}

// drain cordons node, evicts its pods (their controllers recreate them
// elsewhere; the pod reflector deletes their twins and then the pods) and
// deletes the node and its Lease once no pod is left on it. It reports
// whether the node is gone.
func (r *NodeReconciler) drain(ctx context.Context, node *corev1.Node, reason string) (bool, error) {
	if node == nil {
		return true, nil
	}
	if !node.Spec.Unschedulable {
		before := node.DeepCopy()
		node.Spec.Unschedulable = true
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
		if err := r.Client.Patch(ctx, node, client.MergeFrom(before)); err != nil {
			return false, fmt.Errorf("failed to cordon virtual node %q: %w", node.Name, err)
		}
		log.FromContext(ctx).Info("Cordoned virtual node", "node", klog.KObj(node), "reason", reason)
	}
	var pods corev1.PodList
	if err := r.Client.List(ctx, &pods, client.MatchingFields{podNodeIndex: node.Name}); err != nil {
		return false, fmt.Errorf("failed to list pods of virtual node %q: %w", node.Name, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !p.DeletionTimestamp.IsZero() {
			continue
		}
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}
		if err := r.Client.SubResource("eviction").Create(ctx, p, ev); err != nil && !apierrors.IsNotFound(err) {
			// A PodDisruptionBudget refusing the eviction (429) holds the
			// node until the budget allows it, as kubectl drain waits.
			if apierrors.IsTooManyRequests(err) {
				continue
			}
			return false, fmt.Errorf("failed to evict pod %s from virtual node %q: %w", klog.KObj(p), node.Name, err)
		}
	}
	if len(pods.Items) > 0 {
		return false, nil
	}
	if err := r.Client.Delete(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: LeaseNamespace, Name: node.Name}}); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("failed to delete lease of virtual node %q: %w", node.Name, err)
	}
	if err := r.Client.Delete(ctx, node, client.Preconditions{UID: &node.UID}); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("failed to delete virtual node %q: %w", node.Name, err)
	}
	log.FromContext(ctx).Info("Deleted drained virtual node", "node", klog.KObj(node), "reason", reason)
	return true, nil
}
