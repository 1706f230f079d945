package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestFilter(t *testing.T) {
	gpu := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		want        *placement.Status
	}{
		{name: "no taints"},
		{
			name:   "untolerated NoSchedule",
			taints: []corev1.Taint{gpu},
			want:   &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name, Reason: "cluster has taint dedicated=gpu:NoSchedule that the workload does not tolerate"},
		},
		{
			name:   "untolerated NoExecute",
			taints: []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoExecute}},
			want:   &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name, Reason: "cluster has taint maintenance:NoExecute that the workload does not tolerate"},
		},
		{name: "PreferNoSchedule does not rule out", taints: []corev1.Taint{{Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule}}},
		{
			name:        "tolerated by key",
			taints:      []corev1.Taint{gpu},
			tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}},
		},
		{
			name:        "tolerated by value",
			taints:      []corev1.Taint{gpu},
			tolerations: []corev1.Toleration{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}},
		},
		{
			name:        "another effect is not tolerated",
			taints:      []corev1.Taint{gpu},
			tolerations: []corev1.Toleration{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoExecute}},
			want:        &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name, Reason: "cluster has taint dedicated=gpu:NoSchedule that the workload does not tolerate"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &placement.ClusterInfo{Cluster: placement.Cluster{Name: "lille", Taints: tc.taints}}
			got := (&Taints{}).Filter(t.Context(), &placement.Workload{Tolerations: tc.tolerations}, c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
