package multiclusterdeployment

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/traffic"
)

// reading is a workload's last traffic reading.
type reading struct {
	at        time.Time
	byCluster map[string]float64
}

// traffic returns the traffic snapshot for mcd: nil unless its policy is
// TrafficAware. The source is asked at most once per TrafficInterval per
// workload; when it fails, the last good reading stands and the
// TrafficRead condition says why.
func (r *Reconciler) traffic(ctx context.Context, s *Subject) map[string]map[string]float64 {
	mcd := s.MCD
	if mcd.Spec.Placement.Policy != multiclusterv1alpha1.TrafficAware {
		meta.RemoveStatusCondition(&mcd.Status.Conditions, multiclusterv1alpha1.ConditionTrafficRead)
		return nil
	}
	key := s.Key()
	if r.Traffic == nil {
		set(mcd, multiclusterv1alpha1.ConditionTrafficRead, false, multiclusterv1alpha1.ReasonTrafficUnavailable,
			"no traffic source: start the controller with --prometheus-url; replicas are placed by capacity and nearness alone")
		return nil
	}
	r.mu.Lock()
	last, ok := r.readings[key]
	r.mu.Unlock()
	if !ok || time.Since(last.at) >= r.TrafficInterval {
		w := traffic.Workload{Namespace: mcd.Namespace, Name: mcd.Name}
		if t := mcd.Spec.Placement.Traffic; t != nil {
			w.Query, w.ClusterLabel = t.Query, t.ClusterLabel
		}
		byCluster, err := r.Traffic.Traffic(ctx, w)
		if err != nil {
			trafficReadings.WithLabelValues("error").Inc()
			if !meta.IsStatusConditionFalse(mcd.Status.Conditions, multiclusterv1alpha1.ConditionTrafficRead) {
				r.event(s, corev1.EventTypeWarning, multiclusterv1alpha1.ReasonTrafficUnavailable, "%s", err.Error())
			}
			set(mcd, multiclusterv1alpha1.ConditionTrafficRead, false, multiclusterv1alpha1.ReasonTrafficUnavailable,
				err.Error()+"; the last good reading stands")
			// Try again after the interval, not on every event.
			last.at = time.Now()
		} else {
			trafficReadings.WithLabelValues("ok").Inc()
			last = reading{at: time.Now(), byCluster: byCluster}
			set(mcd, multiclusterv1alpha1.ConditionTrafficRead, true, multiclusterv1alpha1.ReasonTrafficRead, describeTraffic(byCluster))
		}
		r.mu.Lock()
		r.readings[key] = last
		r.mu.Unlock()
	}
	if last.byCluster == nil {
		return nil
	}
	return map[string]map[string]float64{key: maps.Clone(last.byCluster)}
}

// forgetTraffic drops a deleted workload's reading.
func (r *Reconciler) forgetTraffic(key string) {
	r.mu.Lock()
	delete(r.readings, key)
	r.mu.Unlock()
}

// describeTraffic puts a reading in words for the TrafficRead condition.
func describeTraffic(byCluster map[string]float64) string {
	if len(byCluster) == 0 {
		return "the source reports no traffic for this workload"
	}
	var b strings.Builder
	b.WriteString("traffic per cluster:")
	for _, name := range slices.Sorted(maps.Keys(byCluster)) {
		fmt.Fprintf(&b, " %s=%.3g", name, byCluster[name])
	}
	return b.String()
}
