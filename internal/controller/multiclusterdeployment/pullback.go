package multiclusterdeployment

import (
	"context"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/reschedule"
)

// defaultPullBackInterval is a MultiClusterRescheduler's interval when it
// names none.
const defaultPullBackInterval = time.Minute

// rescheduler returns the MultiClusterRescheduler that is active (not
// suspended; the first by name when there are several), or nil.
func (r *Reconciler) rescheduler(ctx context.Context) *multiclusterv1alpha1.MultiClusterRescheduler {
	var list multiclusterv1alpha1.MultiClusterReschedulerList
	if err := r.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list MultiClusterReschedulers")
		return nil
	}
	slices.SortFunc(list.Items, func(a, b multiclusterv1alpha1.MultiClusterRescheduler) int {
		return strings.Compare(a.Name, b.Name)
	})
	for i := range list.Items {
		if !list.Items[i].Spec.Suspend {
			return &list.Items[i]
		}
	}
	return nil
}

func pullBackInterval(mcr *multiclusterv1alpha1.MultiClusterRescheduler) time.Duration {
	if mcr.Spec.Interval != nil && mcr.Spec.Interval.Duration > 0 {
		return mcr.Spec.Interval.Duration
	}
	return defaultPullBackInterval
}

// pullBack moves replicas that run away from the preferred clusters (on
// substitutes, burst clusters or the cloud) back to them where they have
// room now, with the re-scheduler's plan, into p.target; the propagation
// then adds them at home before it removes them away. It returns how many
// replicas it moves. It runs at most once per interval per workload.
func (r *Reconciler) pullBack(ctx context.Context, mcr *multiclusterv1alpha1.MultiClusterRescheduler, p *plan, snap *placement.Snapshot, members map[string]*member) int32 {
	w := p.workload
	if mcr == nil || len(w.Locations) == 0 {
		return 0
	}
	r.mu.Lock()
	last, seen := r.lastPullBack[w.Key]
	due := !seen || time.Since(last) >= pullBackInterval(mcr)
	if due {
		r.lastPullBack[w.Key] = time.Now()
	}
	r.mu.Unlock()
	if !due {
		return 0
	}

	var preferred []string
	for _, l := range w.Locations {
		if m := members[l]; m != nil && m.ready && !w.Full[l] {
			preferred = append(preferred, l)
		}
	}
	running := map[string]int32{}
	away := false
	for name, n := range p.target {
		if p.held[name] == 0 && n > 0 {
			running[name] = n
			away = away || !slices.Contains(w.Locations, name)
		}
	}
	if !away || len(preferred) == 0 {
		return 0
	}
	var clusters []reschedule.Cluster
	for _, c := range snap.Clusters {
		rc := reschedule.Cluster{Name: c.Name, Cloud: c.Cloud}
		for i := range c.Nodes {
			if n := &c.Nodes[i]; !n.Unschedulable && i < len(c.Free) {
				if _, bad := placement.UntoleratedTaint(n.Taints, nil); !bad {
					rc.Free = append(rc.Free, c.Free[i])
				}
			}
		}
		clusters = append(clusters, rc)
	}
	moves := reschedule.Plan(clusters, []reschedule.Workload{{Key: w.Key, Requests: w.PodRequests, Preferred: preferred, Running: running}}, snap.Latency, 0)
	var moved int32
	for _, mv := range moves {
		p.target[mv.To] += mv.Replicas
		p.target[mv.From] -= mv.Replicas
		moved += mv.Replicas
	}
	return moved
}

// recordPullBack adds moved to the rescheduler's count and run time.
func (r *Reconciler) recordPullBack(ctx context.Context, mcr *multiclusterv1alpha1.MultiClusterRescheduler, moved int32) {
	before := mcr.DeepCopy()
	now := metav1.Now()
	mcr.Status.LastRunTime = &now
	mcr.Status.ReplicasMovedBack += int64(moved)
	if err := r.Client.Status().Patch(ctx, mcr, client.MergeFrom(before)); err != nil {
		log.FromContext(ctx).Error(err, "Failed to record replicas moved back", "rescheduler", mcr.Name)
	}
}
