package learned

import (
	"context"
	"fmt"
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
	pool    *learn.ScorerPool
	metrics *serve.Metrics
	nodes   sync.Pool // *[]learn.NodeState, one snapshot's worth

	// mu guards layout.
	mu     sync.Mutex
	layout *layout
}

// layout is what PreScore keeps between cycles, by the position of each
// node in the snapshot's list: rebuilt when the list of names changes,
// its measurements when Metrics refreshes, a node's power when its object
// changes. So a cycle reads no map and parses nothing per node. It is not
// modified once a cycle has read it, except by the cycle holding mu.
type layout struct {
	names    []string
	index    map[string]int
	version  uint64
	measured []serve.Measured
	objects  []*corev1.Node
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
	p := &Plugin{handle: h, model: m, pool: learn.NewScorerPool(m), metrics: metrics}
	p.nodes.New = func() any { return new([]learn.NodeState) }
	return p
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
	index  map[string]int
	values []int64
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
	bufp := p.nodes.Get().(*[]learn.NodeState)
	defer p.nodes.Put(bufp)
	nodes := slices.Grow((*bufp)[:0], len(all))[:len(all)]
	*bufp = nodes
	p.mu.Lock()
	l := p.layoutOf(all)
	for i, ni := range all {
		node := ni.Node()
		if l.objects[i] != node {
			l.objects[i] = node
			l.power[i][0], l.power[i][1] = serve.NodePower(node)
		}
		alloc, req := ni.GetAllocatable(), ni.GetRequested()
		n := &nodes[i]
		*n = learn.NodeState{
			AllocatableMilliCPU: alloc.GetMilliCPU(), AllocatableMemory: alloc.GetMemory(), AllocatablePods: int64(alloc.GetAllowedPodNumber()),
			RequestedMilliCPU: req.GetMilliCPU(), RequestedMemory: req.GetMemory(), RequestedPods: int64(len(ni.GetPods())),
			IdleWatts: l.power[i][0], PeakWatts: l.power[i][1],
		}
		l.measured[i].Apply(n)
	}
	index := l.index
	p.mu.Unlock()
	q := make([]float64, len(all))
	mask := make([]bool, len(all))
	s := p.pool.Get()
	s.Score(&ps, nodes, q, mask)
	p.pool.Put(s)

	// Only the nodes that passed filtering compete: the best of them gets
	// the maximum score.
	passed := make([]bool, len(all))
	for _, ni := range feasible {
		if i, ok := index[ni.Node().Name]; ok && mask[i] {
			passed[i] = true
		}
	}
	values := make([]int64, len(all))
	learn.NormalizeScores(q, passed, fwk.MaxNodeScore, values)
	state.Write(stateKey, &scores{index: index, values: values})
	return nil
}

// layoutOf returns the layout of all, rebuilt as the type says; p.mu is
// held.
func (p *Plugin) layoutOf(all []fwk.NodeInfo) *layout {
	l := p.layout
	same := l != nil && len(l.names) == len(all)
	for i := 0; same && i < len(all); i++ {
		same = l.names[i] == all[i].Node().Name
	}
	if !same {
		l = &layout{names: make([]string, len(all)), index: make(map[string]int, len(all)),
			measured: make([]serve.Measured, len(all)), objects: make([]*corev1.Node, len(all)), power: make([][2]float64, len(all))}
		for i, ni := range all {
			l.names[i] = ni.Node().Name
			l.index[l.names[i]] = i
		}
		p.layout = l
	}
	if v := p.metrics.Version(); v != l.version || !same {
		for i, name := range l.names {
			l.measured[i] = p.metrics.Lookup(name)
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
	i, ok := s.index[nodeInfo.Node().Name]
	if !ok {
		return 0, nil
	}
	return s.values[i], nil
}

// ScoreExtensions returns nil: scores are normalised in PreScore.
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return nil }
