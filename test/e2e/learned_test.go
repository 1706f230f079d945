package e2e_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// learnedSchedulerBinary is what hack/scheduler-bin.sh builds.
const learnedSchedulerBinary = "kube-scheduler-meridian"

// learnedSchedulerConfig lets the learned plugin alone rank the nodes (the
// default score plugins are off) and filter by latency; the default
// filters stay.
const learnedSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      filter:
        enabled: [{name: MeridianLearned}]
      preScore:
        enabled: [{name: MeridianLearned}]
      score:
        disabled: [{name: "*"}]
        enabled: [{name: MeridianLearned}]
    pluginConfig:
      - name: MeridianLearned
        args:
          modelPath: %q
          prometheusURL: %q
          refresh: 500ms
`

// TestLearnedScheduler runs a testbed member whose kube-scheduler is the
// out-of-tree build with the learned plugin (hack/k8s/scheduler), its nodes'
// latencies in a real Prometheus, and checks that every pod lands on a
// node the model ranks first among the feasible ones, and that no pod is
// placed beyond its hard latency limit: one that no node can serve within
// it stays Pending with the plugin's reason.
func TestLearnedScheduler(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping end-to-end test on real clusters in -short mode")
	}
	ctx := t.Context()
	scheduler, model, modelPath := learnedScheduler(t)

	const cluster, workers = "learned", 6
	latency := map[string]float64{}
	reg := prometheus.NewRegistry()
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "meridian_node_latency_ms", Help: "Latency to the users."}, []string{"node"})
	reg.MustRegister(gauge)
	for i, ms := range []float64{8, 14, 22, 35, 50, 12} {
		name := cluster + "-worker-" + strconv.Itoa(i+1)
		latency[name] = ms
		gauge.WithLabelValues(name).Set(ms)
	}
	exporter := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(exporter.Close)
	promURL := testenv.StartPrometheus(t, exporter.URL)

	dir := filepath.Join(t.TempDir(), "testbed")
	t.Cleanup(func() {
		if _, err := testbed.Down(context.Background(), dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	if _, err := testbed.Up(ctx, testbed.Options{Name: "e2e-learned", Dir: dir, BinDir: filepath.Dir(scheduler),
		Profile: testbed.Uniform(testbed.UniformOptions{Clusters: 0})}); err != nil {
		t.Fatalf("failed to start the testbed: %v", err)
	}
	member, err := testbed.AddCluster(ctx, dir, testbed.ClusterSpec{
		Name:            cluster,
		SchedulerConfig: fmt.Sprintf(learnedSchedulerConfig, modelPath, promURL),
		SchedulerBinary: scheduler,
	})
	if err != nil {
		t.Fatalf("failed to add the member with the learned scheduler: %v", err)
	}
	if _, err := testbed.SetNodes(ctx, dir, cluster, testbed.NodeSize{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")}, workers, nil); err != nil {
		t.Fatal(err)
	}
	c, err := member.Client()
	if err != nil {
		t.Fatal(err)
	}

	// Wait until Prometheus serves every latency, then for two of the
	// plugin's refreshes.
	metrics, err := serve.NewMetrics(serve.MetricsConfig{URL: promURL})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "Prometheus serves the latencies", func() string {
		if err := metrics.Refresh(ctx); err != nil {
			return err.Error()
		}
		if n, _, _ := metrics.Status(); n != workers {
			return fmt.Sprintf("%d of %d nodes measured", n, workers)
		}
		return ""
	})
	time.Sleep(time.Second)

	limits := map[string]string{serve.AnnotationSoftLatency: "15", serve.AnnotationHardLatency: "25"}
	pods := []*corev1.Pod{}
	for i := range 14 {
		var annotations map[string]string
		if i%2 == 0 {
			annotations = limits
		}
		cpu, mem := "1", "2Gi"
		if i%3 == 0 {
			cpu, mem = "500m", "1Gi"
		}
		pods = append(pods, learnedPod(fmt.Sprintf("web-%02d", i), cpu, mem, annotations))
	}
	for _, pod := range pods {
		top := modelsFirst(t, c, model, pod, latency)
		if len(top) == 0 {
			t.Fatalf("pod %s: no feasible node", pod.Name)
		}
		if err := c.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		var got corev1.Pod
		testenv.Eventually(t, 30*time.Second, "pod "+pod.Name+" bound", func() string {
			if err := c.Get(ctx, client.ObjectKeyFromObject(pod), &got); err != nil {
				return err.Error()
			}
			if got.Spec.NodeName == "" {
				return "not bound"
			}
			return ""
		})
		node := got.Spec.NodeName
		if !slices.Contains(top, node) {
			t.Errorf("pod %s landed on %s; the model ranks first %v", pod.Name, node, top)
		}
		if hard, _ := serve.HardLatencyMs(pod); hard > 0 && latency[node] > hard {
			t.Errorf("pod %s landed on %s, %g ms away, beyond its hard limit %g ms", pod.Name, node, latency[node], hard)
		}
		t.Logf("pod %s (%s CPU, limits %v) on %s (%g ms); model's first: %v", pod.Name,
			pod.Spec.Containers[0].Resources.Requests.Cpu(), pod.Annotations, node, latency[node], top)
	}

	// No node is within 5 ms: the pod waits, and says why.
	far := learnedPod("too-far", "100m", "128Mi", map[string]string{serve.AnnotationHardLatency: "5"})
	if err := c.Create(ctx, far); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "pod too-far unschedulable for its latency", func() string {
		var got corev1.Pod
		if err := c.Get(ctx, client.ObjectKeyFromObject(far), &got); err != nil {
			return err.Error()
		}
		if got.Spec.NodeName != "" {
			return "bound to " + got.Spec.NodeName
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Reason == corev1.PodReasonUnschedulable &&
				strings.Contains(cond.Message, "beyond the pod's hard limit 5 ms") {
				return ""
			}
		}
		return fmt.Sprintf("conditions %v", got.Status.Conditions)
	})
	// Still unbound a while later.
	time.Sleep(2 * time.Second)
	var got corev1.Pod
	if err := c.Get(ctx, client.ObjectKeyFromObject(far), &got); err != nil || got.Spec.NodeName != "" {
		t.Errorf("pod too-far: node %q, error %v; want it Pending", got.Spec.NodeName, err)
	}
}

func learnedPod(name, cpu, mem string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: annotations},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}},
	}
}

// modelsFirst returns the nodes the model ranks first for pod among the
// feasible ones, on the member as it is now: those that get the maximum
// score once the Q-values are mapped onto kube-scheduler's [0, 100], as
// the plugin maps them (the scheduler picks any of them).
func modelsFirst(t *testing.T, c client.Client, model *learn.Model, pod *corev1.Pod, latency map[string]float64) []string {
	t.Helper()
	var nodes corev1.NodeList
	var pods corev1.PodList
	if err := c.List(t.Context(), &nodes); err != nil {
		t.Fatal(err)
	}
	if err := c.List(t.Context(), &pods); err != nil {
		t.Fatal(err)
	}
	req := map[string]serve.Requested{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			req[p.Spec.NodeName] = req[p.Spec.NodeName].Add(serve.PodRequested(p))
		}
	}
	ps, err := serve.PodState(pod)
	if err != nil {
		t.Fatal(err)
	}
	states := make([]learn.NodeState, len(nodes.Items))
	for i := range nodes.Items {
		n := &nodes.Items[i]
		m := serve.Measured{}
		if ms, ok := latency[n.Name]; ok {
			m = serve.Measured{HasLatency: true, LatencyMs: ms}
		}
		states[i] = serve.NodeState(n, req[n.Name], m)
	}
	q, mask := make([]float64, len(states)), make([]bool, len(states))
	learn.NewScorer(model).Score(&ps, states, q, mask)
	scores := make([]int64, len(states))
	learn.NormalizeScores(q, mask, 100, scores)
	var top []string
	for i, s := range scores {
		if mask[i] && s == 100 {
			top = append(top, nodes.Items[i].Name)
		}
	}
	return top
}

// learnedScheduler returns the learned kube-scheduler that
// hack/scheduler-bin.sh builds, and a model saved for it. Any model ranks; a
// fixed seed makes the ranking reproducible.
func learnedScheduler(tb testing.TB) (binary string, model *learn.Model, path string) {
	tb.Helper()
	binDir, err := testbed.FindBinDir()
	if err != nil {
		tb.Fatal(err)
	}
	binary = filepath.Join(binDir, learnedSchedulerBinary)
	if _, err := os.Stat(binary); err != nil {
		tb.Fatalf("no learned kube-scheduler: run make scheduler-bin: %v", err)
	}
	if model, err = learn.NewModel(learn.DefaultHidden, 5); err != nil {
		tb.Fatal(err)
	}
	path = filepath.Join(tb.TempDir(), "model.json")
	if err := model.Save(path); err != nil {
		tb.Fatal(err)
	}
	return binary, model, path
}
