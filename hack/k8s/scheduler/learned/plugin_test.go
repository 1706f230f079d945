package learned

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/traffic"
)

// cluster is n nodes of three sizes with 10 pods each, and latencies from
// 5 to 44 ms.
func cluster(n int) (nodes []*corev1.Node, pods []*corev1.Pod, latency map[string]float64) {
	sizes := []string{"16", "32", "64"}
	latency = map[string]float64{}
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		cpu := resource.MustParse(sizes[i%3])
		mem := resource.MustParse(fmt.Sprintf("%dGi", cpu.Value()*4))
		nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem, corev1.ResourcePods: resource.MustParse("110")}}})
		latency[name] = float64(5 + (i*7)%40)
		for j := range 1 + i%10 {
			pods = append(pods, testPod(fmt.Sprintf("p-%d-%d", i, j), name, "500m", "1Gi", nil))
		}
	}
	return nodes, pods, latency
}

func testPod(name, node, cpu, mem string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name), Annotations: annotations},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}},
	}
}

// newTestPlugin returns the plugin on a snapshot of the cluster, with the
// latencies from the in-memory source it returns.
func newTestPlugin(t testing.TB, nodes []*corev1.Node, pods []*corev1.Pod, latency map[string]float64) (*Plugin, []fwk.NodeInfo, *traffic.Static) {
	t.Helper()
	snapshot := internalcache.NewSnapshot(pods, nodes)
	fh, err := frameworkruntime.NewFramework(t.Context(), frameworkruntime.Registry{}, &config.KubeSchedulerProfile{},
		frameworkruntime.WithSnapshotSharedLister(snapshot))
	if err != nil {
		t.Fatal(err)
	}
	src := &traffic.Static{}
	src.Set(serve.SourceWorkload, latency)
	metrics := serve.NewMetricsFrom(serve.Sources{Latency: src}, time.Second)
	if err := metrics.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	model, err := learn.NewModel(learn.DefaultHidden, 11)
	if err != nil {
		t.Fatal(err)
	}
	all, err := snapshot.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	return newPlugin(fh, model, metrics), all, src
}

// TestPluginRanksAsTheModel checks that the node the plugin scores
// highest is the model's best feasible node among those that passed
// filtering, that Filter drops the nodes beyond the hard limit, and that
// the node the scheduler would pick never breaks it. The cases run in
// turn on one plugin, and each binds its pod to the top node in the
// snapshot's own NodeInfo (as kube-scheduler's cache does between cycles,
// and as its snapshot does, keeping the generation, when it assumes a
// pod of a group) or replaces a node object, so that what the plugin
// keeps between cycles must follow.
// It runs at 30 nodes and at 1,200, where PreScore reads the nodes and
// the model runs on several goroutines.
func TestPluginRanksAsTheModel(t *testing.T) {
	for _, n := range []int{30, 1200} {
		t.Run(fmt.Sprintf("%d nodes", n), func(t *testing.T) { testPluginRanksAsTheModel(t, n) })
	}
}

func testPluginRanksAsTheModel(t *testing.T, n int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2)))
	nodes, pods, latency := cluster(n)
	p, all, src := newTestPlugin(t, nodes, pods, latency)
	tests := []struct {
		name string
		pod  *corev1.Pod
		// replace is a node whose object is replaced after the case with
		// one of twice its allocatable.
		replace int
		// nearer is a node whose measured latency drops to 1 ms after the
		// case (0: none).
		nearer int
	}{
		{name: "no limit", pod: testPod("web", "", "2", "4Gi", nil), replace: -1},
		{name: "soft and hard limits", pod: testPod("web-2", "", "2", "4Gi",
			map[string]string{serve.AnnotationSoftLatency: "15", serve.AnnotationHardLatency: "20"}), replace: 4},
		{name: "a big pod", pod: testPod("big", "", "40", "100Gi", nil), replace: -1, nearer: 7},
		{name: "again with no limit", pod: testPod("web-3", "", "2", "4Gi", nil), replace: 2},
		{name: "again with limits", pod: testPod("web-4", "", "2", "4Gi",
			map[string]string{serve.AnnotationSoftLatency: "15", serve.AnnotationHardLatency: "20"}), replace: -1, nearer: 11},
		{name: "a big pod again", pod: testPod("big-2", "", "40", "100Gi", nil), replace: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			state := framework.NewCycleState()
			var passed []fwk.NodeInfo
			hard, _ := serve.HardLatencyMs(tc.pod)
			for _, ni := range all {
				st := p.Filter(ctx, state, tc.pod, ni)
				beyond := hard > 0 && latency[ni.Node().Name] > hard
				if st.IsSuccess() == beyond {
					t.Errorf("Filter of %s (latency %g ms, hard limit %g): %v", ni.Node().Name, latency[ni.Node().Name], hard, st)
				}
				if st.IsSuccess() {
					passed = append(passed, ni)
				}
			}
			if st := p.PreScore(ctx, state, tc.pod, passed); !st.IsSuccess() {
				t.Fatal(st)
			}
			got := map[string]int64{}
			clone := state.Clone() // Score must find PreScore's scores in a copy too
			for k, ni := range passed {
				if k%2 == 1 { // a copy of the snapshot's NodeInfo is the same node
					ni = ni.Snapshot()
				}
				var cs fwk.CycleState = state
				if k%3 == 2 {
					cs = clone
				}
				s, st := p.Score(ctx, cs, tc.pod, ni)
				if !st.IsSuccess() {
					t.Fatal(st)
				}
				got[ni.Node().Name] = s
			}

			// The model on the same nodes, by hand.
			ps, _ := serve.PodState(tc.pod)
			states := make([]learn.NodeState, len(all))
			for i, ni := range all {
				var req serve.Requested
				for _, pi := range ni.GetPods() {
					req = req.Add(serve.PodRequested(pi.GetPod()))
				}
				states[i] = serve.NodeState(ni.Node(), req, serve.Measured{HasLatency: true, LatencyMs: latency[ni.Node().Name]})
			}
			q, mask := make([]float64, len(all)), make([]bool, len(all))
			learn.NewScorer(p.model).Score(&ps, states, q, mask)
			best := learn.Best(q, mask)
			if best < 0 {
				t.Fatal("no feasible node")
			}
			// Every node's score, not only the top: the model's Q-values
			// of the nodes that passed, mapped onto [0, 100]; the
			// plugin's are the same up to rounding.
			competes := make([]bool, len(all))
			for i, ni := range all {
				_, ok := got[ni.Node().Name]
				competes[i] = ok && mask[i]
			}
			wantScores := make([]int64, len(all))
			learn.NormalizeScores(q, competes, fwk.MaxNodeScore, wantScores)
			for i, ni := range all {
				name := ni.Node().Name
				if s, ok := got[name]; ok && (s < wantScores[i]-1 || s > wantScores[i]+1) {
					t.Errorf("node %s scores %d, want %d±1 (the model on the cluster as it is)", name, s, wantScores[i])
				}
			}
			var top []string
			for name, s := range got {
				if s == fwk.MaxNodeScore {
					top = append(top, name)
				}
			}
			sort.Strings(top)
			if !slices.Contains(top, all[best].Node().Name) {
				t.Errorf("nodes scored %d: %v; want the model's best %s among them", fwk.MaxNodeScore, top, all[best].Node().Name)
			}
			for _, name := range top {
				if hard > 0 && latency[name] > hard {
					t.Errorf("node %s scores the maximum beyond the hard limit", name)
				}
				if diff := cmp.Diff(true, ps.Fits(&states[slices.IndexFunc(all, func(ni fwk.NodeInfo) bool { return ni.Node().Name == name })])); diff != "" {
					t.Errorf("node %s scores the maximum but the pod does not fit (-want +got):\n%s", name, diff)
				}
			}

			bound := tc.pod.DeepCopy()
			bound.Spec.NodeName = all[best].Node().Name
			ni := all[best].(*framework.NodeInfo)
			generation := ni.Generation
			ni.AddPod(bound)
			ni.Generation = generation
			if tc.replace >= 0 {
				node := all[tc.replace].Node().DeepCopy()
				for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
					q := node.Status.Allocatable[r]
					q.Add(q)
					node.Status.Allocatable[r] = q
				}
				all[tc.replace].(*framework.NodeInfo).SetNode(node)
			}
			if tc.nearer > 0 {
				latency[all[tc.nearer].Node().Name] = 1
				src.Set(serve.SourceWorkload, latency)
				if err := p.metrics.Refresh(ctx); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestNodeIndex checks that the index finds every NodeInfo it was given
// at its position, and no other.
func TestNodeIndex(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			infos := make([]*framework.NodeInfo, n)
			x := newNodeIndex(n)
			for i := range infos {
				infos[i] = framework.NewNodeInfo()
				x.put(infos[i], int32(i))
			}
			var wrong []int
			for i, ni := range infos {
				if got, ok := x.get(ni); !ok || got != int32(i) {
					wrong = append(wrong, i)
				}
			}
			if len(wrong) > 0 {
				t.Errorf("%d of %d NodeInfos not found at their position, first %d", len(wrong), n, wrong[0])
			}
			for _, ni := range []*framework.NodeInfo{framework.NewNodeInfo(), nil} {
				if i, ok := x.get(ni); ok {
					t.Errorf("get(%p) = %d, want not found", ni, i)
				}
			}
		})
	}
}

// BenchmarkPreScore measures the plugin's added time per pod: PreScore
// over the snapshot and a Score call per node that passed filtering, as
// the framework makes them (serially here; the framework spreads Score
// over 16 goroutines), at 1,000 and 5,000 nodes. Between pods the pod is
// added to the node scored highest, in the snapshot's NodeInfo, as
// kube-scheduler's cache does (outside the time measured). scored=all
// passes every node to PreScore and Score (percentageOfNodesToScore: 100);
// scored=default the share kube-scheduler finds by default (10 % of 5,000
// nodes, 50 - nodes/125 percent, at least 100 nodes), from a start that
// moves on from pod to pod as kube-scheduler's does. It reports the 50th
// and 99th percentiles of the per-pod time.
func BenchmarkPreScore(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		for _, scored := range []string{"all", "default"} {
			b.Run(fmt.Sprintf("nodes=%d/scored=%s", n, scored), func(b *testing.B) {
				nodes, pods, latency := cluster(n)
				p, all, _ := newTestPlugin(b, nodes, pods, latency)
				pod := testPod("web", "", "1", "2Gi", map[string]string{serve.AnnotationSoftLatency: "20", serve.AnnotationHardLatency: "30"})
				feasible := all
				if scored == "default" {
					feasible = make([]fwk.NodeInfo, max(n*(50-n/125)/100, 100))
				}
				ctx := b.Context()
				var times []time.Duration
				start := 0
				for b.Loop() {
					if scored == "default" {
						for k := range feasible {
							feasible[k] = all[(start+k)%n]
						}
						start = (start + len(feasible)) % n
					}
					begin := time.Now()
					state := framework.NewCycleState()
					if st := p.PreScore(ctx, state, pod, feasible); !st.IsSuccess() {
						b.Fatal(st)
					}
					best, top := all[0], int64(-1)
					for _, ni := range feasible {
						s, st := p.Score(ctx, state, pod, ni)
						if !st.IsSuccess() {
							b.Fatal(st)
						}
						if s > top {
							best, top = ni, s
						}
					}
					times = append(times, time.Since(begin))
					bound := pod.DeepCopy()
					bound.Name = fmt.Sprintf("web-%d", len(times))
					bound.UID = types.UID(bound.Name)
					bound.Spec.NodeName = best.Node().Name
					best.(*framework.NodeInfo).AddPod(bound)
				}
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs/pod")
				b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs/pod")
			})
		}
	}
}
