package cloudprovisioner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/provision"
)

// The drains are recorded on their nodes, not in the controller's memory:
// a node being drained is cordoned and carries AnnotationDrainStarted,
// which the next observation reads (NodeState.Draining, so that the
// decision starts no second drain) and from which a restarted controller
// goes on with the drain's own start time.

// startDrains cordons the nodes the decision drains (Decision.Drain),
// recording when each drain started, so that nothing new lands on them;
// continueDrains evicts their pods and removes them once empty.
func (r *Reconciler) startDrains(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, cr *cloudRead, names []string) error {
	if len(names) == 0 || cr == nil {
		return nil
	}
	for _, name := range names {
		started := r.now()
		if err := cordon(ctx, cr.client, name, &started); err != nil {
			return err
		}
		log.FromContext(ctx).Info("Draining cloud node", "node", klog.KRef("", name))
		r.Recorder.Eventf(cp, nil, "Normal", "Draining", "RemoveNodes", "node %q of cloud cluster %q cordoned: its pods fit on the other cloud nodes and are evicted, PodDisruptionBudgets permitting", name, cp.Spec.CloudClusterName)
	}
	return nil
}

// drains reads where every drain of the provisioner stands, from the
// nodes: each cordoned node with AnnotationDrainStarted that the backend
// is not asked to remove yet (a drained node asked to go keeps its record
// until it is gone; it is not drained or removed again), with its pods
// left and those not terminating yet. A drain whose start cannot be read
// starts its time again.
func (r *Reconciler) drains(ctx context.Context, spec *cloud.Spec, cr *cloudRead) (map[string]provision.DrainState, error) {
	if cr == nil {
		return nil, nil // nothing joined, nothing to drain
	}
	out := map[string]provision.DrainState{}
	for i := range cr.nodes {
		n := &cr.nodes[i]
		if !draining(n) || asked(spec, n.Name) {
			continue
		}
		started, err := time.Parse(time.RFC3339, n.Annotations[multiclusterv1alpha1.AnnotationDrainStarted])
		if err != nil {
			started = r.now()
			if err := cordon(ctx, cr.client, n.Name, &started); err != nil {
				return nil, err
			}
		}
		left, evictable := podsToDrain(cr.pods, n.Name)
		out[n.Name] = provision.DrainState{Started: started, Pods: len(left), Evictable: len(evictable)}
	}
	return out, nil
}

// continueDrains carries out the drains' steps (provision.StepDrains, in
// the pass): evicts the pods left, gives back a node whose pods could not
// be evicted within provision.DrainTimeout, and removes the nodes drained
// empty (drained).
func (r *Reconciler) continueDrains(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec *cloud.Spec, st cloud.Status, obs provision.Observation, cr *cloudRead, steps map[string]provision.DrainStep, drained provision.Decision) error {
	for _, name := range slices.Sorted(maps.Keys(steps)) {
		switch steps[name] {
		case provision.DrainEvict:
			_, evictable := podsToDrain(cr.pods, name)
			if err := evict(ctx, cr.client, evictable); err != nil {
				return err
			}
		case provision.DrainAbandon:
			if err := cordon(ctx, cr.client, name, nil); err != nil {
				return err
			}
			left, _ := podsToDrain(cr.pods, name)
			r.Recorder.Eventf(cp, nil, "Warning", "DrainAbandoned", "RemoveNodes", "node %q of cloud cluster %q kept: %d pods could not be evicted within %v without breaking a PodDisruptionBudget", name, cp.Spec.CloudClusterName, len(left), provision.DrainTimeout)
		}
	}
	if drained.Action == provision.None {
		return nil
	}
	// The nodes keep their drain record: the removal is recorded in
	// status.pools' removing before the backend is asked, which is what
	// keeps a node from being taken off its pool twice, or left cordoned
	// and empty by a restart in between.
	return r.removeNodes(ctx, cp, backend, spec, st, obs, drained)
}

// draining reports whether n is being drained for the provisioner.
func draining(n *corev1.Node) bool {
	_, ok := n.Annotations[multiclusterv1alpha1.AnnotationDrainStarted]
	return ok && n.Spec.Unschedulable
}

// podsToDrain returns the pods on node that a drain waits for (movesPod),
// and those of them to evict (not terminating yet).
func podsToDrain(pods []corev1.Pod, node string) (left, evictable []corev1.Pod) {
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != node || !movesPod(p) {
			continue
		}
		left = append(left, *p)
		if p.DeletionTimestamp.IsZero() {
			evictable = append(evictable, *p)
		}
	}
	return left, evictable
}

// evict asks the Eviction API to evict each pod; it refuses (429) an
// eviction a PodDisruptionBudget does not allow, which is tried again at
// the next period.
func evict(ctx context.Context, c client.Client, pods []corev1.Pod) error {
	for i := range pods {
		p := &pods[i]
		e := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}
		err := c.SubResource("eviction").Create(ctx, p, e)
		switch {
		case err == nil:
			log.FromContext(ctx).Info("Evicted pod from cloud node", "pod", klog.KObj(p), "node", p.Spec.NodeName)
		case apierrors.IsTooManyRequests(err), apierrors.IsNotFound(err):
		default:
			return fmt.Errorf("failed to evict pod %s/%s from node %q: %w", p.Namespace, p.Name, p.Spec.NodeName, err)
		}
	}
	return nil
}

// cordon marks a node unschedulable with the time its drain started, or
// (drainStarted nil) schedulable again without one.
func cordon(ctx context.Context, c client.Client, name string, drainStarted *time.Time) error {
	unschedulable, started := drainStarted != nil, "null"
	if unschedulable {
		started = strconv.Quote(drainStarted.UTC().Format(time.RFC3339))
	}
	return patchNode(ctx, c, name, started, unschedulable)
}

// asked reports whether spec already asks the backend to remove the node.
func asked(spec *cloud.Spec, name string) bool {
	for _, p := range spec.Pools {
		if slices.Contains(p.Remove, name) {
			return true
		}
	}
	return false
}

// forgetRemoved drops from the pools' Remove the nodes the cloud cluster no
// longer has: the backend removed them. Without a reading of the cluster it
// keeps them.
func forgetRemoved(spec *cloud.Spec, cr *cloudRead) {
	if cr == nil {
		return
	}
	exists := map[string]bool{}
	for _, n := range cr.nodes {
		exists[n.Name] = true
	}
	for i := range spec.Pools {
		spec.Pools[i].Remove = slices.DeleteFunc(spec.Pools[i].Remove, func(name string) bool { return !exists[name] })
	}
}

func patchNode(ctx context.Context, c client.Client, name, started string, unschedulable bool) error {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}},"spec":{"unschedulable":%t}}`, multiclusterv1alpha1.AnnotationDrainStarted, started, unschedulable))
	if err := c.Patch(ctx, n, client.RawPatch(types.MergePatchType, patch)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to set unschedulable=%t on node %q: %w", unschedulable, name, err)
	}
	log.FromContext(ctx).Info("Set cloud node schedulable", "node", klog.KObj(n), "unschedulable", unschedulable, "drainStarted", started)
	return nil
}
