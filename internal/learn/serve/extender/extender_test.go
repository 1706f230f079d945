package extender_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/learn/serve/extender"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// nodeSpec is a test node: its size, instance type and measured latency
// (negative: none in Prometheus).
type nodeSpec struct {
	name      string
	cpu, mem  string
	typ       string
	latencyMs float64
}

var testNodes = []nodeSpec{
	{name: "near-small", cpu: "16", mem: "64Gi", typ: "haswell-16", latencyMs: 8},
	{name: "near-big", cpu: "64", mem: "256Gi", typ: "milan-64", latencyMs: 12},
	{name: "mid", cpu: "32", mem: "128Gi", typ: "cascadelake-32", latencyMs: 25},
	{name: "far", cpu: "32", mem: "128Gi", typ: "cascadelake-32", latencyMs: 45},
	{name: "full", cpu: "2", mem: "4Gi", typ: "", latencyMs: 5},
	{name: "unmeasured", cpu: "16", mem: "64Gi", typ: "haswell-16", latencyMs: -1},
}

func node(s nodeSpec) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: map[string]string{}}}
	if s.typ != "" {
		n.Labels[serve.LabelInstanceType] = s.typ
	}
	n.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(s.cpu), corev1.ResourceMemory: resource.MustParse(s.mem),
		corev1.ResourcePods: resource.MustParse("110"),
	}
	n.Status.Capacity = n.Status.Allocatable
	return n
}

func pod(name, nodeName, cpu, mem string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: annotations},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{
			Name: "app", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}},
		}}},
	}
}

// latencyExporter serves the nodes' latencies as Prometheus scrapes them.
func latencyExporter(t *testing.T, nodes []nodeSpec) *httptest.Server {
	reg := prometheus.NewRegistry()
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "meridian_node_latency_ms", Help: "Latency to the users."}, []string{"node"})
	reg.MustRegister(g)
	for _, n := range nodes {
		if n.latencyMs >= 0 {
			g.WithLabelValues(n.name).Set(n.latencyMs)
		}
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	return srv
}

func post[T any](t *testing.T, url string, args *extenderv1.ExtenderArgs) T {
	t.Helper()
	body, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
	var out T
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s: answer does not decode: %v", url, err)
	}
	return out
}

// TestExtender runs the extender on a real API server (nodes and bound
// pods through its informers), a real Prometheus (latencies) and a real
// HTTP server, and checks its answers against the model run on the same
// cluster as the test built it.
func TestExtender(t *testing.T) {
	ctx := t.Context()
	cluster, err := testenv.StartCluster(t, "member")
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cluster.Config)
	for _, s := range testNodes {
		if _, err := client.CoreV1().Nodes().Create(ctx, node(s), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	bound := []*corev1.Pod{
		pod("a", "near-small", "4", "8Gi", nil),
		pod("b", "near-small", "2", "4Gi", nil),
		pod("c", "mid", "8", "16Gi", nil),
		pod("d", "full", "2", "1Gi", nil),
	}
	for _, p := range bound {
		if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	promURL := testenv.StartPrometheus(t, latencyExporter(t, testNodes).URL)
	metrics, err := serve.NewMetrics(serve.MetricsConfig{URL: promURL, Refresh: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "Prometheus has every measured node", func() string {
		if err := metrics.Refresh(ctx); err != nil {
			return err.Error()
		}
		if n, _, _ := metrics.Status(); n != len(testNodes)-1 {
			return fmt.Sprintf("%d nodes measured", n)
		}
		return ""
	})
	cache := extender.NewCache()
	if err := cache.Watch(ctx, client); err != nil {
		t.Fatal(err)
	}
	model, err := learn.NewModel(learn.DefaultHidden, 7)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(extender.New(model, cache, metrics).Handler())
	t.Cleanup(srv.Close)

	// want is the model's answer computed from what the test created.
	want := func(p *corev1.Pod, bound []*corev1.Pod, asked []string) extenderv1.HostPriorityList {
		ps, err := serve.PodState(p)
		if err != nil {
			t.Fatal(err)
		}
		req := map[string]serve.Requested{}
		for _, b := range bound {
			req[b.Spec.NodeName] = req[b.Spec.NodeName].Add(serve.PodRequested(b))
		}
		// The cache orders nodes by name; the model is equivariant, so
		// the order does not change the scores.
		states := make([]learn.NodeState, len(testNodes))
		pos := map[string]int{}
		for i, s := range testNodes {
			var m serve.Measured
			if s.latencyMs >= 0 {
				m = serve.Measured{HasLatency: true, LatencyMs: s.latencyMs}
			}
			states[i], pos[s.name] = serve.NodeState(node(s), req[s.name], m), i
		}
		q, mask := make([]float64, len(states)), make([]bool, len(states))
		learn.NewScorer(model).Score(&ps, states, q, mask)
		inAsked := make([]bool, len(states))
		for _, name := range asked {
			inAsked[pos[name]] = true
		}
		for i := range mask {
			mask[i] = mask[i] && inAsked[i]
		}
		scores := make([]int64, len(states))
		learn.NormalizeScores(q, mask, extenderv1.MaxExtenderPriority, scores)
		var out extenderv1.HostPriorityList
		for _, name := range asked {
			out = append(out, extenderv1.HostPriority{Host: name, Score: scores[pos[name]]})
		}
		return out
	}

	limited := pod("web", "", "1", "2Gi", map[string]string{serve.AnnotationSoftLatency: "20", serve.AnnotationHardLatency: "30"})
	free := pod("batch", "", "3", "3Gi", nil)
	all := []string{"far", "full", "mid", "near-big", "near-small", "unmeasured"}

	prioritize := []struct {
		name  string
		pod   *corev1.Pod
		asked []string
		// zero are the nodes that must score 0: infeasible by size or by
		// the hard latency limit.
		zero []string
	}{
		{name: "latency limits, every node", pod: limited, asked: all, zero: []string{"far", "full", "unmeasured"}},
		{name: "no limit, every node", pod: free, asked: all, zero: []string{"full"}},
		{name: "no limit, the scheduler's survivors", pod: free, asked: []string{"far", "mid"}},
	}
	for _, tc := range prioritize {
		t.Run("prioritize "+tc.name, func(t *testing.T) {
			var got extenderv1.HostPriorityList
			testenv.Eventually(t, 10*time.Second, "the extender's answer", func() string {
				got = post[extenderv1.HostPriorityList](t, srv.URL+extender.PathPrioritize,
					&extenderv1.ExtenderArgs{Pod: tc.pod, NodeNames: &tc.asked})
				return cmp.Diff(want(tc.pod, bound, tc.asked), got)
			})
			best := int64(0)
			for _, h := range got {
				best = max(best, h.Score)
				for _, z := range tc.zero {
					if h.Host == z && h.Score != 0 {
						t.Errorf("node %s scores %d; want 0 (infeasible)", z, h.Score)
					}
				}
			}
			if best != extenderv1.MaxExtenderPriority {
				t.Errorf("best score %d; want %d", best, extenderv1.MaxExtenderPriority)
			}
		})
	}

	t.Run("prioritize follows the cluster", func(t *testing.T) {
		// Without a kubelet, a bound pod deleted gracefully would wait for
		// one; kube-scheduler's cache, like the extender's, counts it
		// until it is gone.
		if err := client.CoreV1().Pods("default").Delete(ctx, "c", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
		left := []*corev1.Pod{bound[0], bound[1], bound[3]}
		testenv.Eventually(t, 10*time.Second, "scores without pod c", func() string {
			got := post[extenderv1.HostPriorityList](t, srv.URL+extender.PathPrioritize,
				&extenderv1.ExtenderArgs{Pod: free, NodeNames: &all})
			return cmp.Diff(want(free, left, all), got)
		})
	})

	t.Run("filter", func(t *testing.T) {
		got := post[extenderv1.ExtenderFilterResult](t, srv.URL+extender.PathFilter,
			&extenderv1.ExtenderArgs{Pod: limited, NodeNames: &all})
		wantNames := []string{"full", "mid", "near-big", "near-small"}
		wantResult := extenderv1.ExtenderFilterResult{
			NodeNames: &wantNames,
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{
				"far":        "node's latency to the users 45.0 ms is beyond the pod's hard limit 30 ms",
				"unmeasured": "node's latency to the users 100.0 ms is beyond the pod's hard limit 30 ms",
			},
		}
		if diff := cmp.Diff(wantResult, got); diff != "" {
			t.Errorf("filter (-want +got):\n%s", diff)
		}
		got = post[extenderv1.ExtenderFilterResult](t, srv.URL+extender.PathFilter,
			&extenderv1.ExtenderArgs{Pod: free, NodeNames: &all})
		if diff := cmp.Diff(all, *got.NodeNames); diff != "" {
			t.Errorf("filter without a limit (-want +got):\n%s", diff)
		}
		bad := pod("bad", "", "1", "1Gi", map[string]string{serve.AnnotationHardLatency: "soon"})
		got = post[extenderv1.ExtenderFilterResult](t, srv.URL+extender.PathFilter,
			&extenderv1.ExtenderArgs{Pod: bad, NodeNames: &all})
		if wantErr := `pod default/bad: invalid annotation learn.meridian.dev/hard-latency-ms="soon": want a non-negative number of the unit its name says, such as "30"`; got.Error != wantErr {
			t.Errorf("filter of a bad annotation: error %q; want %q", got.Error, wantErr)
		}
	})
}
