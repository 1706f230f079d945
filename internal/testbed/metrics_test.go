package testbed

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestMetricsServer starts one member and checks that metrics.k8s.io
// reports the usage a pod's annotations declare, through the API and
// through kubectl top, and follows a change of the annotations.
func TestMetricsServer(t *testing.T) {
	binDir := binDirForTest(t)
	tb, err := upForTest(t, Options{
		Name:    "metrics",
		BinDir:  binDir,
		Profile: Uniform(UniformOptions{Clusters: 1, Nodes: 1, CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")}),
	})
	if err != nil {
		t.Fatal(err)
	}
	member := tb.Cluster("member-1")
	c := memberClient(t, member)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "busy", Namespace: corev1.NamespaceDefault},
		Spec:       podSpec("500m", "256Mi"),
	}
	if err := c.Create(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	kubectl, err := kubectlPath(binDir)
	if err != nil {
		t.Fatal(err)
	}

	// Sequential: each step changes the pod's annotations and waits for
	// PodMetrics to follow. A new pod shows after two to four scrapes; a
	// change after one or two.
	tests := []struct {
		name        string
		cpu, memory string
		within      time.Duration
	}{
		{name: "annotated usage", cpu: "250m", memory: "64Mi", within: 9 * MetricResolution},
		{name: "changed annotations", cpu: "1500m", memory: "200Mi", within: 5 * MetricResolution},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q}}}`,
				UsageCPUAnnotation, tc.cpu, UsageMemoryAnnotation, tc.memory)
			if err := c.Patch(t.Context(), pod, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("cpu=%s memory=%s", tc.cpu, tc.memory)
			var got string
			waitFor(t, tc.within, "PodMetrics "+want, func() (bool, error) {
				m := &metricsv1beta1.PodMetrics{}
				if err := c.Get(t.Context(), client.ObjectKeyFromObject(pod), m); err != nil {
					return false, err
				}
				got = podUsage(m)
				return got == want, nil
			})

			out, err := exec.CommandContext(t.Context(), kubectl, "--kubeconfig", tb.Kubeconfig, "--context", member.Context,
				"top", "pod", pod.Name, "--no-headers").CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl top pod: %v: %s", err, out)
			}
			// kubectl rounds CPU to the millicore: 1500m may show as 1501m.
			fields := strings.Fields(string(out))
			if len(fields) != 3 || fields[0] != pod.Name || roundCPU(resource.MustParse(fields[1])) != tc.cpu || fields[2] != tc.memory {
				t.Errorf("kubectl top pod = %q, want %s %s %s", out, pod.Name, tc.cpu, tc.memory)
			}
		})
	}
}

// podUsage sums the usage of a pod's containers as "cpu=250m memory=64Mi".
// CPU is a rate between two scrapes, a little off the annotation when the
// scrapes were not exactly MetricResolution apart: it is rounded to 10m.
func podUsage(m *metricsv1beta1.PodMetrics) string {
	var cpu, memory resource.Quantity
	for _, c := range m.Containers {
		cpu.Add(*c.Usage.Cpu())
		memory.Add(*c.Usage.Memory())
	}
	return fmt.Sprintf("cpu=%s memory=%s", roundCPU(cpu), memory.String())
}

func roundCPU(q resource.Quantity) string {
	milli := (q.ScaledValue(resource.Micro) + 5000) / 10000 * 10
	return resource.NewMilliQuantity(milli, resource.DecimalSI).String()
}

func TestRoundCPU(t *testing.T) {
	tests := []struct{ in, want string }{
		{in: "249995164n", want: "250m"},
		{in: "251m", want: "250m"},
		{in: "1501m", want: "1500m"},
		{in: "1500m", want: "1500m"},
		{in: "2", want: "2"},
		{in: "0", want: "0"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, roundCPU(resource.MustParse(tc.in))); diff != "" {
				t.Errorf("roundCPU(%s) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
