package propagation

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/inventory"
)

// PodCounts is what a member shows of an owner's pods that have not
// finished: how many are bound to a node, and how many its scheduler found
// no node for, since when (the earliest).
type PodCounts struct {
	Bound        int32
	Pending      int32
	PendingSince time.Time
}

// CountPods counts the pods of owner in namespace in member m, from its
// cache's owner index; finished and terminating pods do not count.
func CountPods(ctx context.Context, m *inventory.Member, namespace string, owner Owner) (PodCounts, error) {
	var out PodCounts
	var pods corev1.PodList
	byOwner := client.MatchingFields{inventory.PodOwnerIndex: inventory.OwnerKey(owner.Labels())}
	if err := m.Client.List(ctx, &pods, client.InNamespace(namespace), byOwner); err != nil {
		return out, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || !p.DeletionTimestamp.IsZero() {
			continue
		}
		if p.Spec.NodeName != "" {
			out.Bound++
			continue
		}
		if since, ok := unschedulableSince(p); ok {
			if out.Pending == 0 || since.Before(out.PendingSince) {
				out.PendingSince = since
			}
			out.Pending++
		}
	}
	return out, nil
}

// unschedulableSince reports when the scheduler found no node for p.
func unschedulableSince(p *corev1.Pod) (time.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}
