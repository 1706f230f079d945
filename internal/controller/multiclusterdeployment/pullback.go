package multiclusterdeployment

import (
	"context"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/provision"
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

// settledClouds names the cloud clusters whose replicas may leave for any
// member cluster with room (decide.SettledClouds), from the
// CloudProvisioners' phase and status.demandTrend.
func (r *Reconciler) settledClouds(ctx context.Context) map[string]bool {
	var list multiclusterv1alpha1.CloudProvisionerList
	if err := r.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list CloudProvisioners")
		return nil
	}
	clouds := make([]decide.CloudTrend, 0, len(list.Items))
	for _, cp := range list.Items {
		clouds = append(clouds, decide.CloudTrend{
			Cluster: string(cp.Spec.CloudClusterName),
			Ready:   cp.Status.Phase == multiclusterv1alpha1.PhaseReady,
			Trend:   provision.Trend(cp.Status.DemandTrend),
		})
	}
	return decide.SettledClouds(clouds)
}

func pullBackInterval(mcr *multiclusterv1alpha1.MultiClusterRescheduler) time.Duration {
	if mcr.Spec.Interval != nil && mcr.Spec.Interval.Duration > 0 {
		return mcr.Spec.Interval.Duration
	}
	return defaultPullBackInterval
}

// recordPullBack adds moved to the rescheduler's count and sets its run
// time. Several workloads record at once, so it reads the latest copy from
// the API server and writes with its resourceVersion, again on a conflict:
// no count is lost to a stale cached copy.
func (r *Reconciler) recordPullBack(ctx context.Context, mcr *multiclusterv1alpha1.MultiClusterRescheduler, moved int32) {
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest := &multiclusterv1alpha1.MultiClusterRescheduler{}
		if err := reader.Get(ctx, client.ObjectKeyFromObject(mcr), latest); err != nil {
			return err
		}
		now := metav1.NewTime(r.Clock.Now())
		latest.Status.LastRunTime = &now
		latest.Status.ReplicasMovedBack += int64(moved)
		return r.Client.Status().Update(ctx, latest)
	})
	if err != nil {
		log.FromContext(ctx).Error(err, "Failed to record replicas moved back", "rescheduler", klog.KObj(mcr), "moved", moved)
	}
}
