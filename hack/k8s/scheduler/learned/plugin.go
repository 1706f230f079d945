package learned

import (
	"context"
	"fmt"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "MeridianLearned"

// firstReadTimeout bounds the plugin's first read of the measurements.
const firstReadTimeout = 10 * time.Second

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

	// last is the cycle state PreScore last wrote and what it wrote: the
	// framework calls Score once per node with the state PreScore had,
	// and comparing a pointer is cheaper than reading the state's map.
	last atomic.Pointer[written]
}

// written is a cycle state and the scores PreScore wrote into it.
type written struct {
	state  fwk.CycleState
	scores *scores
}

// layout is what PreScore keeps between cycles, by the position of each
// node in the snapshot's list: rebuilt when the list changes (a node
// added or removed; the snapshot keeps one NodeInfo per node for its
// life), a node's allocatable and power when its object changes, the
// measurements when Metrics refreshes. So a cycle reads only each node's
// requested resources, and the cached scorer re-encodes only the nodes
// whose state changed. index and byName are not modified once a cycle
// has read them.
type layout struct {
	infos []fwk.NodeInfo
	// index finds the snapshot's own NodeInfos by address; byName any
	// other.
	index   *nodeIndex
	byName  map[string]int32
	version uint64
	nodes   []node
	// read is each node as this cycle read it.
	read []read
}

// read is what a cycle reads of a NodeInfo.
type read struct {
	object         *corev1.Node
	cpu, mem, pods int64
}

// node is one node of a layout: its object as last read, the power its
// object says, and its state as last given to the cached scorer.
type node struct {
	object *corev1.Node
	power  [2]float64
	state  learn.NodeState
}

// measure sets the node's latency and power from the measurement m, the
// power from its object where m has none.
func (e *node) measure(m serve.Measured) {
	e.state.IdleWatts, e.state.PeakWatts = e.power[0], e.power[1]
	m.Apply(&e.state)
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
	// Until the first read every node counts as serve.UnknownLatencyMs
	// away, which filters out every node for a pod with a hard limit: a
	// scheduler that starts with pods waiting reads once before it
	// schedules.
	first, cancel := context.WithTimeout(ctx, firstReadTimeout)
	if err := metrics.Refresh(first); err != nil {
		logger.Error(err, "Failed to read node measurements before scheduling; nodes count as unmeasured until a read succeeds")
	}
	cancel()
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
	index  *nodeIndex
	byName map[string]int32
	values []uint8
}

func (s *scores) Clone() fwk.StateData { return s }

// lookup returns the position of ni in the maps.
func lookup(index *nodeIndex, byName map[string]int32, ni fwk.NodeInfo) (int32, bool) {
	if fi, ok := ni.(*framework.NodeInfo); ok {
		if i, ok := index.get(fi); ok {
			return i, true
		}
	}
	// Not the snapshot's own NodeInfo (a copy made for this cycle): the
	// node by name.
	i, ok := byName[ni.Node().Name]
	return i, ok
}

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
	// Reading 5,000 NodeInfos is mostly waiting for memory: the chunks
	// go to as many goroutines as may run, so that their waits overlap.
	parallel(len(all), func(lo, hi int) {
		readNodes(l, all, lo, hi)
		p.setNodes(l, all, lo, hi)
	})
	n := len(all)
	p.q, p.mask, p.passed = grow(p.q, n), grow(p.mask, n), grow(p.passed, n)
	p.cached.Score(&ps, p.q, p.mask)

	// Only the nodes that passed filtering compete: the best of them gets
	// the maximum score.
	clear(p.passed)
	for _, ni := range feasible {
		if i, ok := lookup(l.index, l.byName, ni); ok && p.mask[i] {
			p.passed[i] = true
		}
	}
	values := make([]uint8, n)
	learn.NormalizeScores(p.q, p.passed, fwk.MaxNodeScore, values)
	sc := &scores{index: l.index, byName: l.byName, values: values}
	state.Write(stateKey, sc)
	p.last.Store(&written{state: state, scores: sc})
	return nil
}

// readNodes reads what a cycle needs of nodes lo-hi of all (l's list)
// into l.read, and nothing else: a NodeInfo and its requested resources
// are mostly not in the processor's cache, and a loop this short keeps
// many of those reads in flight at once.
func readNodes(l *layout, all []fwk.NodeInfo, lo, hi int) {
	read := l.read[lo:hi]
	for i, ni := range all[lo:hi] {
		r := &read[i]
		// The snapshot's own type is read without an interface call per
		// field.
		if fi, ok := ni.(*framework.NodeInfo); ok && fi.Requested != nil {
			r.object, r.cpu, r.mem, r.pods = fi.Node(), fi.Requested.MilliCPU, fi.Requested.Memory, int64(len(fi.Pods))
			continue
		}
		req := ni.GetRequested()
		r.object, r.cpu, r.mem, r.pods = ni.Node(), req.GetMilliCPU(), req.GetMemory(), int64(len(ni.GetPods()))
	}
}

// setNodes gives the cached scorer nodes lo-hi of l's list as readNodes
// read them, those that changed; p.mu is held. Calls for distinct nodes
// may run at once.
func (p *Plugin) setNodes(l *layout, all []fwk.NodeInfo, lo, hi int) {
	for i := lo; i < hi; i++ {
		r, e := &l.read[i], &l.nodes[i]
		if e.object == r.object && e.state.RequestedMilliCPU == r.cpu && e.state.RequestedMemory == r.mem && e.state.RequestedPods == r.pods {
			continue
		}
		if e.object != r.object {
			e.object = r.object
			a := all[i].GetAllocatable()
			e.state.AllocatableMilliCPU, e.state.AllocatableMemory, e.state.AllocatablePods = a.GetMilliCPU(), a.GetMemory(), int64(a.GetAllowedPodNumber())
			e.power[0], e.power[1] = serve.NodePower(r.object)
			e.measure(p.metrics.Lookup(r.object.Name))
		}
		e.state.RequestedMilliCPU, e.state.RequestedMemory, e.state.RequestedPods = r.cpu, r.mem, r.pods
		p.cached.Set(i, &e.state)
	}
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
		l = &layout{infos: slices.Clone(all), index: newNodeIndex(len(all)),
			byName: make(map[string]int32, len(all)), nodes: make([]node, len(all)), read: make([]read, len(all))}
		for i, ni := range all {
			if fi, ok := ni.(*framework.NodeInfo); ok {
				l.index.put(fi, int32(i))
			}
			l.byName[ni.Node().Name] = int32(i)
		}
		l.version = p.metrics.Version()
		p.layout = l
		p.cached.Resize(len(all))
		return l // setNodes reads every node's object and measurements
	}
	if v := p.metrics.Version(); v != l.version {
		for i := range l.nodes {
			if e := &l.nodes[i]; e.object != nil {
				e.measure(p.metrics.Lookup(e.object.Name))
				p.cached.Set(i, &e.state)
			}
		}
		l.version = v
	}
	return l
}

// Score returns the node's score from PreScore.
func (p *Plugin) Score(_ context.Context, state fwk.CycleState, _ *corev1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	var s *scores
	if w := p.last.Load(); w != nil && w.state == state {
		s = w.scores
	} else {
		// Another state than PreScore's last (a copy): its own scores.
		data, err := state.Read(stateKey)
		if err != nil {
			return 0, fwk.AsStatus(fmt.Errorf("no scores from PreScore: %w", err))
		}
		s = data.(*scores)
	}
	i, ok := lookup(s.index, s.byName, nodeInfo)
	if !ok {
		return 0, nil
	}
	return int64(s.values[i]), nil
}

// ScoreExtensions returns nil: scores are normalised in PreScore.
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return nil }
