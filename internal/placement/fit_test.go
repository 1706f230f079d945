package placement

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestFitCount(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	withTaint := func(nodes []Node, i int, ts ...corev1.Taint) []Node {
		nodes[i].Taints = ts
		return nodes
	}
	cordon := func(nodes []Node, i int) []Node {
		nodes[i].Unschedulable = true
		return nodes
	}
	tests := []struct {
		name        string
		nodes       []Node
		req         Resources
		tolerations []corev1.Toleration
		want        int32
	}{
		{
			name:  "fragmented: ten nodes with one CPU free hold no pod of two",
			nodes: freeNodes(10, 1000, 8),
			req:   res(2000, 1, 1),
			want:  0,
		},
		{
			name:  "aggregate would say five, nodes say zero; one node of two CPU says one",
			nodes: append(freeNodes(10, 1000, 8), Node{Name: "big", Allocatable: res(2000, 8, 110)}),
			req:   res(2000, 1, 1),
			want:  1,
		},
		{
			name:  "a request equal to what is free fits",
			nodes: freeNodes(3, 2000, 4),
			req:   res(1000, 2, 1),
			want:  6,
		},
		{
			name:  "memory binds",
			nodes: freeNodes(2, 16000, 3),
			req:   res(500, 1, 1),
			want:  6,
		},
		{
			name:  "pod slots bind",
			nodes: []Node{{Name: "n", Allocatable: res(16000, 64, 110), Requested: res(0, 0, 108)}},
			req:   res(100, 0, 1),
			want:  2,
		},
		{
			name:  "requested is subtracted",
			nodes: []Node{{Name: "n", Allocatable: res(4000, 16, 110), Requested: res(2500, 1, 5)}},
			req:   res(500, 1, 1),
			want:  3,
		},
		{
			name:  "overcommitted node holds none",
			nodes: []Node{{Name: "n", Allocatable: res(4000, 16, 110), Requested: res(5000, 1, 5)}},
			req:   res(500, 1, 1),
			want:  0,
		},
		{
			name:  "no request is bounded by pod slots",
			nodes: freeNodes(2, 0, 0),
			req:   Resources{Pods: 1},
			want:  220,
		},
		{
			name:  "cordoned node holds none",
			nodes: cordon(freeNodes(3, 2000, 8), 1),
			req:   res(1000, 1, 1),
			want:  4,
		},
		{
			name:        "cordoned node takes a pod that tolerates node.kubernetes.io/unschedulable",
			nodes:       cordon(freeNodes(3, 2000, 8), 1),
			req:         res(1000, 1, 1),
			tolerations: []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists}},
			want:        6,
		},
		{
			name: "only a cordoned node has room, and the pod tolerates the cordon",
			nodes: cordon([]Node{
				{Name: "full", Allocatable: res(4000, 8, 110), Requested: res(4000, 0, 1)},
				{Name: "cordoned", Allocatable: res(4000, 8, 110)},
			}, 1),
			req:         res(2000, 1, 1),
			tolerations: []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			want:        2,
		},
		{
			name: "only a tainted node has room, and the pod tolerates the taint",
			nodes: withTaint([]Node{
				{Name: "tainted", Allocatable: res(4000, 8, 110)},
				{Name: "full", Allocatable: res(4000, 8, 110), Requested: res(4000, 0, 1)},
			}, 0, taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)),
			req:         res(2000, 1, 1),
			tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			want:        2,
		},
		{
			name:  "NoSchedule taint not tolerated",
			nodes: withTaint(freeNodes(3, 2000, 8), 0, taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)),
			req:   res(1000, 1, 1),
			want:  4,
		},
		{
			name:  "NoExecute taint not tolerated",
			nodes: withTaint(freeNodes(3, 2000, 8), 2, taint("dedicated", "gpu", corev1.TaintEffectNoExecute)),
			req:   res(1000, 1, 1),
			want:  4,
		},
		{
			name:  "PreferNoSchedule taint rules nothing out",
			nodes: withTaint(freeNodes(3, 2000, 8), 0, taint("dedicated", "gpu", corev1.TaintEffectPreferNoSchedule)),
			req:   res(1000, 1, 1),
			want:  6,
		},
		{
			name:        "tolerated taint",
			nodes:       withTaint(freeNodes(3, 2000, 8), 0, taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)),
			req:         res(1000, 1, 1),
			tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}},
			want:        6,
		},
		{
			name:        "toleration with another value does not tolerate",
			nodes:       withTaint(freeNodes(3, 2000, 8), 0, taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)),
			req:         res(1000, 1, 1),
			tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db"}},
			want:        4,
		},
		{
			name: "extended resources bind",
			nodes: []Node{
				{Name: "gpu", Allocatable: Resources{MilliCPU: 16000, Memory: 64 * gi, Pods: 110, Scalar: map[corev1.ResourceName]int64{gpu: 4}}},
				{Name: "cpu", Allocatable: res(16000, 64, 110)},
			},
			req:  Resources{MilliCPU: 1000, Memory: gi, Pods: 1, Scalar: map[corev1.ResourceName]int64{gpu: 1}},
			want: 4,
		},
		{
			name:  "no nodes",
			nodes: nil,
			req:   res(1, 0, 1),
			want:  0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			free := make([]Resources, len(tc.nodes))
			for i, n := range tc.nodes {
				free[i] = n.Allocatable.Remaining(n.Requested)
			}
			if diff := cmp.Diff(tc.want, FitCount(free, tc.nodes, tc.req, tc.tolerations)); diff != "" {
				t.Errorf("FitCount() mismatch (-want +got):\n%s", diff)
			}
			c := NewSnapshot([]Cluster{{Name: "c", Nodes: tc.nodes}}, nil, nil).Clusters[0]
			if diff := cmp.Diff(tc.want, c.FitCount(tc.req, tc.tolerations)); diff != "" {
				t.Errorf("ClusterInfo.FitCount() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want > 0, c.FitsOne(tc.req, tc.tolerations)); diff != "" {
				t.Errorf("ClusterInfo.FitsOne() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFitCountMatchesOneByOne checks FitCount on random clusters against
// binding pods one at a time to the first node with room, until none fits.
func TestFitCountMatchesOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			nodes := make([]Node, 1+r.IntN(20))
			for j := range nodes {
				nodes[j] = Node{
					Name:          fmt.Sprint(j),
					Allocatable:   res(1000*(1+r.Int64N(16)), 1+r.Int64N(64), 1+r.Int64N(30)),
					Requested:     res(r.Int64N(8000), r.Int64N(32), r.Int64N(10)),
					Unschedulable: r.IntN(10) == 0,
				}
				if r.IntN(8) == 0 {
					nodes[j].Taints = []corev1.Taint{taint("t", "", corev1.TaintEffectNoSchedule)}
				}
			}
			req := res(100*r.Int64N(30), r.Int64N(4), 1)
			req.Memory += r.Int64N(gi)

			free := make([]Resources, len(nodes))
			for j, n := range nodes {
				free[j] = n.Allocatable.Remaining(n.Requested)
			}
			var want int32
			for bound := true; bound; {
				bound = false
				for j := range nodes {
					f := &free[j]
					if nodes[j].Unschedulable || len(nodes[j].Taints) > 0 || f.Pods < 1 || f.MilliCPU < req.MilliCPU || f.Memory < req.Memory {
						continue
					}
					f.MilliCPU, f.Memory, f.Pods = f.MilliCPU-req.MilliCPU, f.Memory-req.Memory, f.Pods-1
					want++
					bound = true
					break
				}
			}
			c := NewSnapshot([]Cluster{{Name: "c", Nodes: nodes}}, nil, nil).Clusters[0]
			if diff := cmp.Diff(want, c.FitCount(req, nil)); diff != "" {
				t.Errorf("FitCount(%v) mismatch (-want +got):\n%s", req, diff)
			}
		})
	}
}
