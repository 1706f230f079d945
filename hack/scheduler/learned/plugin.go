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

	// mu guards index, the position of each node name in the last
	// snapshot's node list: rebuilt only when the list changes.
	mu    sync.Mutex
	names []string
	index map[string]int
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
	for i, ni := range all {
		req := ni.GetRequested()
		nodes[i] = serve.NodeState(ni.Node(), serve.Requested{
			MilliCPU: req.GetMilliCPU(), Memory: req.GetMemory(), Pods: int64(len(ni.GetPods())),
		}, p.metrics.Lookup(ni.Node().Name))
	}
	q := make([]float64, len(all))
	mask := make([]bool, len(all))
	s := p.pool.Get()
	s.Score(&ps, nodes, q, mask)
	p.pool.Put(s)

	index := p.indexOf(all)
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

// indexOf returns the position of each node of all by name, reusing the
// last one when the node list is the same.
func (p *Plugin) indexOf(all []fwk.NodeInfo) map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	same := len(p.names) == len(all)
	for i := 0; same && i < len(all); i++ {
		same = p.names[i] == all[i].Node().Name
	}
	if same {
		return p.index
	}
	names := make([]string, len(all))
	index := make(map[string]int, len(all))
	for i, ni := range all {
		names[i] = ni.Node().Name
		index[names[i]] = i
	}
	p.names, p.index = names, index
	return index
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
