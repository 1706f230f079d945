package fit

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/meridian-dev/meridian/internal/placement"
)

const gi = 1 << 30

func freeNodes(n int, milliFree, memFree int64) []placement.Node {
	out := make([]placement.Node, n)
	for i := range out {
		out[i] = placement.Node{Name: fmt.Sprint(i), Allocatable: placement.Resources{MilliCPU: milliFree, Memory: memFree, Pods: 110}}
	}
	return out
}

func TestFilter(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	twoCPU := placement.Resources{MilliCPU: 2000, Memory: gi, Pods: 1}
	dedicated := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name    string
		nodes   []placement.Node
		w       placement.Workload
		want    string // the reason; empty means the cluster passes
		wantNil bool
	}{
		{name: "fits", nodes: freeNodes(3, 2000, 4*gi), w: placement.Workload{PodRequests: twoCPU}},
		{
			name:  "fragmented CPU",
			nodes: freeNodes(3, 1500, 4*gi), w: placement.Workload{PodRequests: twoCPU},
			want: "cluster has 3 nodes but none has 2 CPU free (largest free: 1.5 CPU)",
		},
		{
			name:  "CPU and memory short",
			nodes: freeNodes(2, 1000, gi/2), w: placement.Workload{PodRequests: twoCPU},
			want: "cluster has 2 nodes but none has 2 CPU and 1Gi memory free (largest free: 1 CPU, 512Mi memory)",
		},
		{
			name:  "CPU on one node, memory on another",
			nodes: append(freeNodes(1, 4000, gi/2), freeNodes(1, 500, 8*gi)...), w: placement.Workload{PodRequests: twoCPU},
			want: "cluster has 2 nodes but none has 2 CPU and 1Gi memory free at once (largest free, on different nodes: 4 CPU, 8Gi memory)",
		},
		{
			name: "no pod slots",
			nodes: []placement.Node{{Name: "full", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 8 * gi, Pods: 110},
				Requested: placement.Resources{Pods: 110}}},
			w:    placement.Workload{PodRequests: twoCPU},
			want: "cluster has 1 node but none has a free pod slot",
		},
		{
			name: "cordoned and tainted",
			nodes: func() []placement.Node {
				ns := freeNodes(4, 8000, 8*gi)
				ns[0].Unschedulable, ns[1].Unschedulable = true, true
				ns[2].Taints = []corev1.Taint{dedicated}
				ns[3].Allocatable.MilliCPU = 1000
				return ns
			}(),
			w:    placement.Workload{PodRequests: twoCPU},
			want: "cluster has 4 nodes, 1 usable (2 are cordoned and 1 has a taint the workload does not tolerate (dedicated=db:NoSchedule)), but none has 2 CPU free (largest free: 1 CPU)",
		},
		{
			name: "none usable",
			nodes: func() []placement.Node {
				ns := freeNodes(2, 8000, 8*gi)
				ns[0].Taints, ns[1].Taints = []corev1.Taint{dedicated}, []corev1.Taint{dedicated}
				return ns
			}(),
			w:    placement.Workload{PodRequests: twoCPU},
			want: "cluster has 2 nodes but none is usable: 2 have taints the workload does not tolerate (such as dedicated=db:NoSchedule)",
		},
		{
			name: "the taint is tolerated",
			nodes: func() []placement.Node {
				ns := freeNodes(1, 8000, 8*gi)
				ns[0].Taints = []corev1.Taint{dedicated}
				return ns
			}(),
			w: placement.Workload{PodRequests: twoCPU, Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}},
		},
		{
			name:  "extended resource",
			nodes: freeNodes(2, 8000, 8*gi), w: placement.Workload{PodRequests: placement.Resources{Pods: 1, Scalar: map[corev1.ResourceName]int64{gpu: 1}}},
			want: "cluster has 2 nodes but none has 1 nvidia.com/gpu free (largest free: 0 nvidia.com/gpu)",
		},
		{name: "no nodes", w: placement.Workload{PodRequests: twoCPU}, want: "cluster has no nodes"},
		{
			name:  "a full cluster where the workload runs passes",
			nodes: freeNodes(3, 1500, 4*gi), w: placement.Workload{PodRequests: twoCPU, Current: map[string]int32{"lille": 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := placement.NewSnapshot([]placement.Cluster{{Name: "lille", Ready: true, Nodes: tc.nodes}}, nil, nil)
			var want *placement.Status
			if tc.want != "" {
				want = &placement.Status{Code: placement.Unschedulable, Plugin: Name, Reason: tc.want}
			}
			got := (&Fit{}).Filter(t.Context(), &tc.w, s.Clusters[0])
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
