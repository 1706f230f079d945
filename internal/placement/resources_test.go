package placement

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func container(name, cpu, mem string) corev1.Container {
	c := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}}}
	if cpu != "" {
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		c.Resources.Requests[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return c
}

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := func(c corev1.Container) corev1.Container {
		c.RestartPolicy = &always
		return c
	}
	gpu := container("gpu", "1", "1Gi")
	gpu.Resources.Requests["nvidia.com/gpu"] = resource.MustParse("2")
	gpu.Resources.Requests[corev1.ResourceEphemeralStorage] = resource.MustParse("1Gi")
	tests := []struct {
		name string
		spec corev1.PodSpec
		want Resources
	}{
		{
			name: "one container",
			spec: corev1.PodSpec{Containers: []corev1.Container{container("app", "500m", "512Mi")}},
			want: Resources{MilliCPU: 500, Memory: 512 << 20, Pods: 1},
		},
		{
			name: "containers add up",
			spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "500m", "512Mi"), container("b", "250m", "256Mi")}},
			want: Resources{MilliCPU: 750, Memory: 768 << 20, Pods: 1},
		},
		{
			name: "a larger init container sets the request",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{container("init", "2", "128Mi")},
				Containers:     []corev1.Container{container("app", "500m", "512Mi")},
			},
			want: Resources{MilliCPU: 2000, Memory: 512 << 20, Pods: 1},
		},
		{
			name: "a restartable sidecar adds to the containers and to later init containers",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					sidecar(container("proxy", "100m", "64Mi")),
					container("migrate", "1", "64Mi"),
				},
				Containers: []corev1.Container{container("app", "500m", "512Mi")},
			},
			want: Resources{MilliCPU: 1100, Memory: 576 << 20, Pods: 1},
		},
		{
			name: "overhead is added",
			spec: corev1.PodSpec{
				Containers: []corev1.Container{container("app", "500m", "512Mi")},
				Overhead:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")},
			},
			want: Resources{MilliCPU: 750, Memory: 632 << 20, Pods: 1},
		},
		{
			name: "pod-level requests replace the containers'",
			spec: corev1.PodSpec{
				Containers: []corev1.Container{container("app", "500m", "512Mi")},
				Resources:  &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}},
			},
			want: Resources{MilliCPU: 2000, Memory: 512 << 20, Pods: 1},
		},
		{
			name: "extended resources and ephemeral storage are scalars",
			spec: corev1.PodSpec{Containers: []corev1.Container{gpu}},
			want: Resources{MilliCPU: 1000, Memory: gi, Pods: 1, Scalar: map[corev1.ResourceName]int64{"nvidia.com/gpu": 2, corev1.ResourceEphemeralStorage: gi}},
		},
		{
			name: "no requests is one pod",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
			want: Resources{Pods: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PodRequests(&corev1.Pod{Spec: tc.spec})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PodRequests() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewResources(t *testing.T) {
	got := NewResources(corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("3900m"),
		corev1.ResourceMemory: resource.MustParse("15Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
		"nvidia.com/gpu":      resource.MustParse("4"),
		"example.com/zero":    resource.MustParse("0"),
	})
	want := Resources{MilliCPU: 3900, Memory: 15 * gi, Pods: 110, Scalar: map[corev1.ResourceName]int64{"nvidia.com/gpu": 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewResources() mismatch (-want +got):\n%s", diff)
	}
}

func TestResourcesString(t *testing.T) {
	tests := []struct {
		name string
		r    Resources
		want string
	}{
		{name: "zero", r: Resources{}, want: "nothing"},
		{name: "fractional CPU", r: Resources{MilliCPU: 1500, Memory: 1536 << 20, Pods: 1}, want: "1.5 CPU, 1536Mi memory, 1 pod"},
		{name: "scalars sorted", r: Resources{Pods: 3, Scalar: map[corev1.ResourceName]int64{"nvidia.com/gpu": 1, corev1.ResourceEphemeralStorage: gi}}, want: "3 pods, 1Gi ephemeral-storage, 1 nvidia.com/gpu"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.r.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResourcesArithmetic(t *testing.T) {
	gpu := func(n int64) map[corev1.ResourceName]int64 { return map[corev1.ResourceName]int64{"nvidia.com/gpu": n} }
	node := Resources{MilliCPU: 4000, Memory: 8 * gi, Pods: 110, Scalar: gpu(2)}
	used := Resources{MilliCPU: 1500, Memory: 2 * gi, Pods: 3, Scalar: gpu(2)}
	tests := []struct {
		name string
		got  Resources
		want Resources
	}{
		{name: "add", got: node.Add(used), want: Resources{MilliCPU: 5500, Memory: 10 * gi, Pods: 113, Scalar: gpu(4)}},
		{name: "sub drops what comes to zero", got: node.Sub(used), want: Resources{MilliCPU: 2500, Memory: 6 * gi, Pods: 107}},
		{name: "sub may go below zero", got: used.Sub(node), want: Resources{MilliCPU: -2500, Memory: -6 * gi, Pods: -107}},
		{name: "remaining never below zero", got: used.Remaining(node), want: Resources{}},
		{name: "remaining of a resource only used", got: Resources{Pods: 2}.Remaining(Resources{Pods: 1, Scalar: gpu(1)}), want: Resources{Pods: 1}},
		{name: "add an extended resource to none", got: Resources{}.Add(Resources{Scalar: gpu(1)}), want: Resources{Scalar: gpu(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff(gpu(2), node.Scalar); diff != "" {
		t.Errorf("the operands changed (-want +got):\n%s", diff)
	}
}

func TestResourcesFits(t *testing.T) {
	free := Resources{MilliCPU: 1000, Memory: gi, Pods: 2, Scalar: map[corev1.ResourceName]int64{"nvidia.com/gpu": 1}}
	tests := []struct {
		name string
		req  Resources
		want bool
	}{
		{name: "everything at the limit", req: free, want: true},
		{name: "nothing asked", req: Resources{}, want: true},
		{name: "one CPU too many", req: Resources{MilliCPU: 1001, Pods: 1}, want: false},
		{name: "memory", req: Resources{Memory: gi + 1, Pods: 1}, want: false},
		{name: "pods", req: Resources{Pods: 3}, want: false},
		{name: "an extended resource free lacks", req: Resources{Pods: 1, Scalar: map[corev1.ResourceName]int64{"example.com/fpga": 1}}, want: false},
		{name: "two GPUs", req: Resources{Pods: 1, Scalar: map[corev1.ResourceName]int64{"nvidia.com/gpu": 2}}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.req.Fits(free); got != tc.want {
				t.Errorf("%v.Fits(%v) = %v, want %v", tc.req, free, got, tc.want)
			}
		})
	}
}
