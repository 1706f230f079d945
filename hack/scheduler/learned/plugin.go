package learned

import (
	"context"
	"fmt"
	goruntime "runtime"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "MeridianLearned"

// stateKey is where PreScore leaves the scores for Score.
const stateKey fwk.StateKey = Name

var (
	_ fwk.FilterPlugin   = &Plugin{}
	_ fwk.PreScorePlugin = &Plugin{}
	_ fwk.ScorePlugin    = &Plugin{}
)

// Plugin scores nodes with the learned model and filters out nodes beyond
// a pod's hard latency limit.
type Plugin struct {
	handle  fwk.Handle
	model   *learn.Model
	metrics *serve.Metrics

	// mu guards what PreScore keeps between cycles. kube-scheduler runs
	// one scheduling cycle at a time, so it is not contended.
	mu     sync.Mutex
	layout *layout
	cached *learn.CachedScorer
	q      []float64
	mask   []bool
	passed []bool
	values []int64
}

// layout is what PreScore keeps between cycles, by the position of each
// node in the snapshot's list: rebuilt when the list changes (a node
// added or removed; the snapshot keeps one NodeInfo per node for its
// life), a node's allocatable and power when its object changes, the
// measurements when Metrics refreshes. So a cycle reads only each node's
// requested resources, and the cached scorer re-encodes only the nodes
// whose state changed. index is not modified once a cycle has read it.
type layout struct {
	infos    []fwk.NodeInfo
	index    map[fwk.NodeInfo]int32
	byName   map[string]int32
	version  uint64
	measured []serve.Measured
	objects  []*corev1.Node
	alloc    [][3]int64
	power    [][2]float64
}

// New is the plugin's factory: it loads the model and starts reading the
// nodes' measurements from Prometheus until ctx ends.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	m, err := learn.Load(args.ModelPath)
	if err != nil {
		return nil, fmt.Errorf("%s plugin: %w", Name, err)
	}
	metrics, err := serve.NewMetrics(args.metricsConfig())
	if err != nil {
		return nil, fmt.Errorf("%s plugin: %w", Name, err)
	}
	logger := klog.FromContext(ctx).WithValues("plugin", Name)
	logger.Info("Loaded model", "path", args.ModelPath, "reward", m.Reward, "prometheus", args.PrometheusURL, "refresh", args.refreshOrDefault())
	go metrics.Run(ctx, func(err error) {
		logger.Error(err, "Failed to read node measurements; keeping the previous ones")
	})
	return newPlugin(h, m, metrics), nil
}

// newPlugin returns the plugin scoring with m on h's snapshot, with the
// measurements of metrics.
func newPlugin(h fwk.Handle, m *learn.Model, metrics *serve.Metrics) *Plugin {
	return &Plugin{handle: h, model: m, metrics: metrics, cached: learn.NewCachedScorer(m)}
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return Name }

// Filter rejects a node whose latency to the users is beyond the pod's
// hard limit; a node without a measured latency counts as
// serve.UnknownLatencyMs away.
func (p *Plugin) Filter(_ context.Context, _ fwk.CycleState, pod *corev1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	hard, err := serve.HardLatencyMs(pod)
	if err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	if hard <= 0 {
		return nil
	}
	latency := serve.UnknownLatencyMs
	if m := p.metrics.Lookup(nodeInfo.Node().Name); m.HasLatency {
		latency = m.LatencyMs
	}
	if latency > hard {
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("node's latency to the users %.1f ms is beyond the pod's hard limit %g ms", latency, hard))
	}
	return nil
}

// scores is what PreScore leaves for Score: each node's score by its
// position in index. It is not changed once written, so Clone shares it.
type scores struct {
	index  map[fwk.NodeInfo]int32
	byName map[string]int32
	values []uint8
}

func (s *scores) Clone() fwk.StateData { return s }

// PreScore scores every node of the snapshot at once.
func (p *Plugin) PreScore(_ context.Context, state fwk.CycleState, pod *corev1.Pod, feasible []fwk.NodeInfo) *fwk.Status {
	ps, err := serve.PodState(pod)
	if err != nil {
		return fwk.AsStatus(err)
	}
	all, err := p.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return fwk.AsStatus(fmt.Errorf("failed to list the snapshot's nodes: %w", err))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.layoutOf(all)
	cs := p.cached
	// Reading 5,000 NodeInfos is mostly waiting for memory: the chunks
	// go to as many goroutines as may run, so that their waits overlap.
	parallel(len(all), func(lo, hi int) {
		for i, ni := range all[lo:hi] {
			p.setNode(l, lo+i, ni)
		}
	})
	n := len(all)
	p.q, p.mask, p.passed, p.values = grow(p.q, n), grow(p.mask, n), grow(p.passed, n), grow(p.values, n)
	cs.Score(&ps, p.q, p.mask)

	// Only the nodes that passed filtering compete: the best of them gets
	// the maximum score.
	clear(p.passed)
	for _, ni := range feasible {
		i, ok := l.index[ni]
		if !ok {
			i, ok = l.byName[ni.Node().Name]
		}
		if ok && p.mask[i] {
			p.passed[i] = true
		}
	}
	learn.NormalizeScores(p.q, p.passed, fwk.MaxNodeScore, p.values)
	values := make([]uint8, n)
	for i, v := range p.values {
		values[i] = uint8(v)
	}
	state.Write(stateKey, &scores{index: l.index, byName: l.byName, values: values})
	return nil
}

// setNode gives the cached scorer node i as ni has it now; l is the
// layout of ni's list and p.mu is held. Calls for distinct nodes may run
// at once.
func (p *Plugin) setNode(l *layout, i int, ni fwk.NodeInfo) {
	if node := ni.Node(); l.objects[i] != node {
		l.objects[i] = node
		a := ni.GetAllocatable()
		l.alloc[i] = [3]int64{a.GetMilliCPU(), a.GetMemory(), int64(a.GetAllowedPodNumber())}
		l.power[i][0], l.power[i][1] = serve.NodePower(node)
	}
	req := ni.GetRequested()
	n := learn.NodeState{
		AllocatableMilliCPU: l.alloc[i][0], AllocatableMemory: l.alloc[i][1], AllocatablePods: l.alloc[i][2],
		RequestedMilliCPU: req.GetMilliCPU(), RequestedMemory: req.GetMemory(), RequestedPods: int64(len(ni.GetPods())),
		IdleWatts: l.power[i][0], PeakWatts: l.power[i][1],
	}
	l.measured[i].Apply(&n)
	p.cached.Set(i, &n)
}

// parallelChunk is the fewest nodes worth a goroutine of their own.
const parallelChunk = 1024

// parallel calls f on consecutive ranges of [0, n) on up to GOMAXPROCS
// goroutines and returns when all calls have.
func parallel(n int, f func(lo, hi int)) {
	workers := min(goruntime.GOMAXPROCS(0), (n+parallelChunk-1)/parallelChunk)
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := per; lo < n; lo += per {
		wg.Go(func() { f(lo, min(lo+per, n)) })
	}
	f(0, min(per, n))
	wg.Wait()
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// layoutOf returns the layout of all, rebuilt as the type says, with the
// cached scorer resized to it; p.mu is held.
func (p *Plugin) layoutOf(all []fwk.NodeInfo) *layout {
	l := p.layout
	same := l != nil && len(l.infos) == len(all)
	for i := 0; same && i < len(all); i++ {
		same = l.infos[i] == all[i]
	}
	if !same {
		l = &layout{infos: slices.Clone(all), index: make(map[fwk.NodeInfo]int32, len(all)), byName: make(map[string]int32, len(all)),
			measured: make([]serve.Measured, len(all)), objects: make([]*corev1.Node, len(all)),
			alloc: make([][3]int64, len(all)), power: make([][2]float64, len(all))}
		for i, ni := range all {
			l.index[ni] = int32(i)
			l.byName[ni.Node().Name] = int32(i)
		}
		p.layout = l
		p.cached.Resize(len(all))
	}
	if v := p.metrics.Version(); v != l.version || !same {
		for i, ni := range all {
			l.measured[i] = p.metrics.Lookup(ni.Node().Name)
		}
		l.version = v
	}
	return l
}

// Score returns the node's score from PreScore.
func (p *Plugin) Score(_ context.Context, state fwk.CycleState, _ *corev1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	data, err := state.Read(stateKey)
	if err != nil {
		return 0, fwk.AsStatus(fmt.Errorf("no scores from PreScore: %w", err))
	}
	s := data.(*scores)
	i, ok := s.index[nodeInfo]
	if !ok {
		// Not the snapshot's own NodeInfo (a copy made for this cycle):
		// the node by name.
		if i, ok = s.byName[nodeInfo.Node().Name]; !ok {
			return 0, nil
		}
	}
	return int64(s.values[i]), nil
}

// ScoreExtensions returns nil: scores are normalised in PreScore.
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return nil }
