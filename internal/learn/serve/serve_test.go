package serve_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/nodeenv"
	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/traffic"
)

func TestPodState(t *testing.T) {
	pod := func(annotations map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Annotations: annotations},
			Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("3")}}}},
				Containers: []corev1.Container{
					{Name: "a", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}},
					{Name: "b", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")}}},
				},
			},
		}
	}
	tests := []struct {
		name        string
		annotations map[string]string
		want        learn.PodState
		wantErr     string
	}{
		// An init container asking more than the containers together sets
		// the CPU, as kube-scheduler counts it.
		{name: "no limits", want: learn.PodState{MilliCPU: 3000, Memory: 1536 << 20}},
		{name: "limits", annotations: map[string]string{serve.AnnotationSoftLatency: "20", serve.AnnotationHardLatency: "30.5"},
			want: learn.PodState{MilliCPU: 3000, Memory: 1536 << 20, SoftLatencyMs: 20, HardLatencyMs: 30.5}},
		{name: "negative", annotations: map[string]string{serve.AnnotationHardLatency: "-1"},
			wantErr: `pod ns/p: invalid annotation learn.meridian.dev/hard-latency-ms="-1": want a non-negative number of the unit its name says, such as "30"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := serve.PodState(pod(tc.annotations))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || !errors.Is(err, serve.ErrInvalidAnnotation) {
					t.Fatalf("error %v; want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeStatePower(t *testing.T) {
	node := func(labels, annotations map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels, Annotations: annotations},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"),
				corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("50")}}}
	}
	milan, cascade := nodeenv.NodeTypes[2], nodeenv.NodeTypes[1]
	tests := []struct {
		name      string
		node      *corev1.Node
		measured  serve.Measured
		wantPower [2]float64
		wantLat   float64
	}{
		{name: "instance type", node: node(map[string]string{serve.LabelInstanceType: "milan-64"}, nil),
			measured: serve.Measured{HasLatency: true, LatencyMs: 12}, wantPower: [2]float64{milan.IdleWatts, milan.PeakWatts}, wantLat: 12},
		{name: "annotations before the type", node: node(map[string]string{serve.LabelInstanceType: "milan-64"},
			map[string]string{serve.AnnotationIdleWatts: "40", serve.AnnotationPeakWatts: "90"}), wantPower: [2]float64{40, 90}, wantLat: serve.UnknownLatencyMs},
		{name: "Prometheus before the annotations", node: node(nil, map[string]string{serve.AnnotationIdleWatts: "40", serve.AnnotationPeakWatts: "90"}),
			measured: serve.Measured{HasPower: true, IdleWatts: 10, PeakWatts: 20}, wantPower: [2]float64{10, 20}, wantLat: serve.UnknownLatencyMs},
		{name: "scaled by vCPUs", node: node(nil, nil),
			wantPower: [2]float64{cascade.IdleWatts / 4, cascade.PeakWatts / 4}, wantLat: serve.UnknownLatencyMs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := serve.NodeState(tc.node, serve.Requested{MilliCPU: 1500, Memory: 1 << 30, Pods: 2}, tc.measured)
			want := learn.NodeState{AllocatableMilliCPU: 8000, RequestedMilliCPU: 1500, AllocatableMemory: 32 << 30, RequestedMemory: 1 << 30,
				AllocatablePods: 50, RequestedPods: 2, LatencyMs: tc.wantLat, IdleWatts: tc.wantPower[0], PeakWatts: tc.wantPower[1]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMetricsKeepsTheLastGoodRead(t *testing.T) {
	src := &traffic.Static{}
	m := serve.NewMetricsFrom(serve.Sources{Latency: src}, 0)
	src.Set(serve.SourceWorkload, map[string]float64{"a": 5, "b": 40})
	if err := m.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	src.SetError(errors.New("connection refused"))
	if err := m.Refresh(t.Context()); err == nil {
		t.Fatal("Refresh succeeded with a failing source")
	}
	got := []serve.Measured{m.Lookup("a"), m.Lookup("b"), m.Lookup("c")}
	want := []serve.Measured{{HasLatency: true, LatencyMs: 5}, {HasLatency: true, LatencyMs: 40}, {}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n, _, err := m.Status(); n != 2 || err == nil || m.Version() != 1 {
		t.Errorf("Status: %d nodes, error %v, version %d; want 2, the source's error, 1", n, err, m.Version())
	}
}
