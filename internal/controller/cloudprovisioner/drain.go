package cloudprovisioner

import (
	"context"
	"fmt"
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

// drain is one node being drained: when it was cordoned and how many of
// its pods a PodDisruptionBudget refused to evict at the last attempt.
type drain struct {
	started time.Time
	blocked int
}

// startDrains cordons the nodes consolidation chose that still run pods,
// so that nothing new lands on them, and starts evicting their pods. The
// nodes are removed by continueDrains once empty. A drain is recorded on
// its node (AnnotationDrainStarted), from which resumeDrains takes it up
// again after a restart.
func (r *Reconciler) startDrains(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, names []string) error {
	if len(names) == 0 {
		return nil
	}
	c, err := r.cloudClient(cp)
	if err != nil {
		return err
	}
	r.mu.Lock()
	ds := r.drains[cp.UID]
	if ds == nil {
		ds = map[string]*drain{}
		r.drains[cp.UID] = ds
	}
	r.mu.Unlock()
	for _, name := range names {
		if _, ok := ds[name]; ok {
			continue
		}
		started := r.now()
		if err := cordon(ctx, c, name, &started); err != nil {
			return err
		}
		r.mu.Lock()
		ds[name] = &drain{started: started}
		r.mu.Unlock()
		log.FromContext(ctx).Info("Draining cloud node", "node", klog.KRef("", name))
		r.Recorder.Eventf(cp, nil, "Normal", "Draining", "RemoveNodes", "node %q of cloud cluster %q cordoned: its pods fit on the other cloud nodes and are evicted, PodDisruptionBudgets permitting", name, cp.Spec.CloudClusterName)
	}
	return nil
}

// continueDrains takes every drain one step (provision.NextDrainStep):
// evicts the pods left, removes a node that is empty, or gives back a node
// whose pods could not be evicted within drainTimeout.
func (r *Reconciler) continueDrains(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec *cloud.Spec, st cloud.Status, obs provision.Observation) error {
	c, err := r.cloudClient(cp)
	if err != nil {
		return nil // nothing joined, nothing to drain
	}
	r.mu.Lock()
	resumed := r.resumed[cp.UID]
	r.mu.Unlock()
	if !resumed {
		if err := r.resumeDrains(ctx, cp, c); err != nil {
			return err
		}
	}
	r.mu.Lock()
	ds := r.drains[cp.UID]
	r.mu.Unlock()
	if len(ds) == 0 {
		return nil
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods); err != nil {
		return fmt.Errorf("failed to list the pods of cloud cluster %q: %w", cp.Spec.CloudClusterName, err)
	}
	var removed []string
	for name, d := range ds {
		left, evictable := podsToDrain(pods.Items, name)
		switch provision.NextDrainStep(provision.DrainState{Started: d.started, Pods: len(left), Blocked: d.blocked}, len(evictable), r.now(), drainTimeout) {
		case provision.DrainEvict:
			if d.blocked, err = evict(ctx, c, evictable); err != nil {
				return err
			}
		case provision.DrainRemove:
			removed = append(removed, name)
		case provision.DrainAbandon:
			if err := cordon(ctx, c, name, nil); err != nil {
				return err
			}
			r.Recorder.Eventf(cp, nil, "Warning", "DrainAbandoned", "RemoveNodes", "node %q of cloud cluster %q kept: %d pods could not be evicted within %v without breaking a PodDisruptionBudget", name, cp.Spec.CloudClusterName, len(left), drainTimeout)
			r.forgetDrain(cp.UID, name)
		}
	}
	if len(removed) == 0 {
		return nil
	}
	removeNodes(spec, obs, removed)
	recordPools(cp, *spec, st)
	for _, name := range removed {
		r.forgetDrain(cp.UID, name)
	}
	d := provision.Decision{Action: provision.RemoveNodes, Remove: removed, Reason: "drained: its pods run on the other cloud nodes"}
	decisions.WithLabelValues(cp.Namespace, cp.Name, string(d.Action)).Inc()
	cp.Status.LastDecision = &multiclusterv1alpha1.ProvisionerDecision{Action: string(d.Action), Nodes: int32(len(removed)), Reason: d.Reason, Time: metav1.Time{Time: r.now()}}
	r.Recorder.Eventf(cp, nil, "Normal", string(d.Action), string(d.Action), "%s", describe(*spec, d))
	if err := backend.Ensure(ctx, *spec); err != nil {
		return fmt.Errorf("failed to remove drained nodes %v of cloud cluster %q: %w", removed, spec.Name, err)
	}
	return nil
}

// resumeDrains takes up, once per CloudProvisioner after a start, the
// drains recorded on the cloud cluster's nodes that this controller does
// not know of: those a previous one started before it stopped. Without it a cordoned node would stay cordoned, and
// paid for, until consolidation happened to choose it again.
func (r *Reconciler) resumeDrains(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, c client.Client) error {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return fmt.Errorf("failed to list the nodes of cloud cluster %q: %w", cp.Spec.CloudClusterName, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range nodes.Items {
		n := &nodes.Items[i]
		value, ok := n.Annotations[multiclusterv1alpha1.AnnotationDrainStarted]
		if !ok || !n.Spec.Unschedulable || r.drains[cp.UID][n.Name] != nil {
			continue
		}
		started, err := time.Parse(time.RFC3339, value)
		if err != nil {
			started = r.now() // unreadable: the drain starts its time again
		}
		if r.drains[cp.UID] == nil {
			r.drains[cp.UID] = map[string]*drain{}
		}
		r.drains[cp.UID][n.Name] = &drain{started: started}
		log.FromContext(ctx).Info("Resuming the drain of cloud node", "node", klog.KObj(n), "started", started)
	}
	r.resumed[cp.UID] = true
	return nil
}

func (r *Reconciler) forgetDrain(uid types.UID, node string) {
	r.mu.Lock()
	delete(r.drains[uid], node)
	r.mu.Unlock()
}

// draining reports whether a node of cp is being drained.
func (r *Reconciler) draining(uid types.UID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.drains[uid]) > 0
}

// cloudClient is the client of cp's joined cloud cluster.
func (r *Reconciler) cloudClient(cp *multiclusterv1alpha1.CloudProvisioner) (client.Client, error) {
	m, ok := r.Inventory.Member(string(cp.Spec.CloudClusterName))
	if !ok {
		return nil, fmt.Errorf("cloud cluster %q has not joined: cannot drain its nodes", cp.Spec.CloudClusterName)
	}
	return m.Client, nil
}

// podsToDrain returns the pods on node that a drain waits for (not
// DaemonSet or mirror pods, not finished), and those of them to evict (not
// terminating yet).
func podsToDrain(pods []corev1.Pod, node string) (left, evictable []corev1.Pod) {
	for _, p := range pods {
		if p.Spec.NodeName != node || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
			continue
		}
		if owner := metav1.GetControllerOf(&p); owner != nil && owner.Kind == "DaemonSet" {
			continue
		}
		left = append(left, p)
		if p.DeletionTimestamp.IsZero() {
			evictable = append(evictable, p)
		}
	}
	return left, evictable
}

// evict asks the Eviction API to evict each pod, which refuses (429) an
// eviction a PodDisruptionBudget does not allow; it returns how many were
// refused.
func evict(ctx context.Context, c client.Client, pods []corev1.Pod) (int, error) {
	blocked := 0
	for i := range pods {
		p := &pods[i]
		e := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}
		err := c.SubResource("eviction").Create(ctx, p, e)
		switch {
		case err == nil:
			log.FromContext(ctx).Info("Evicted pod from cloud node", "pod", klog.KObj(p), "node", p.Spec.NodeName)
		case apierrors.IsTooManyRequests(err):
			blocked++
		case apierrors.IsNotFound(err):
		default:
			return blocked, fmt.Errorf("failed to evict pod %s/%s from node %q: %w", p.Namespace, p.Name, p.Spec.NodeName, err)
		}
	}
	return blocked, nil
}

// cordon marks a node unschedulable with the time its drain started, or
// (drainStarted nil) schedulable again without one.
func cordon(ctx context.Context, c client.Client, name string, drainStarted *time.Time) error {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	unschedulable, started := drainStarted != nil, "null"
	if unschedulable {
		started = strconv.Quote(drainStarted.UTC().Format(time.RFC3339))
	}
	patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}},"spec":{"unschedulable":%t}}`, multiclusterv1alpha1.AnnotationDrainStarted, started, unschedulable))
	if err := c.Patch(ctx, n, client.RawPatch(types.MergePatchType, patch)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to set unschedulable=%t on node %q: %w", unschedulable, name, err)
	}
	log.FromContext(ctx).Info("Set cloud node schedulable", "node", klog.KObj(n), "unschedulable", unschedulable)
	return nil
}
