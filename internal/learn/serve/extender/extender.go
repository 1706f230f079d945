package extender

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	corev1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
)

// The extender's paths, for a KubeSchedulerConfiguration's extenders entry
// (urlPrefix "http://HOST:PORT", filterVerb "filter", prioritizeVerb
// "prioritize", nodeCacheCapable true).
const (
	PathFilter     = "/filter"
	PathPrioritize = "/prioritize"
	PathHealthz    = "/healthz"
)

// maxRequestBytes bounds a request body: the names of 5,000 nodes and a
// pod are well under a megabyte; without nodeCacheCapable every node
// object is sent, so allow far more.
const maxRequestBytes = 64 << 20

// ErrNoNodes means the cache holds no node yet.
var ErrNoNodes = errors.New("the extender's node cache holds no node")

// Extender answers kube-scheduler's filter and prioritize calls with the
// learned model. Its methods are safe for concurrent use.
type Extender struct {
	cache   *Cache
	metrics *serve.Metrics
	pool    *learn.ScorerPool
	bufs    sync.Pool // *buffers
}

// buffers is one request's working memory.
type buffers struct {
	nodes []learn.NodeState
	q     []float64
	mask  []bool
	score []int64
}

// New returns an extender scoring with m over the nodes of cache, with the
// measurements of metrics.
func New(m *learn.Model, cache *Cache, metrics *serve.Metrics) *Extender {
	e := &Extender{cache: cache, metrics: metrics, pool: learn.NewScorerPool(m)}
	e.bufs.New = func() any { return &buffers{} }
	return e
}

// names returns the nodes a request is about: the names alone with
// nodeCacheCapable, else the node objects' names.
func names(args *extenderv1.ExtenderArgs) []string {
	if args.NodeNames != nil {
		return *args.NodeNames
	}
	if args.Nodes == nil {
		return nil
	}
	out := make([]string, len(args.Nodes.Items))
	for i := range args.Nodes.Items {
		out[i] = args.Nodes.Items[i].Name
	}
	return out
}

// Prioritize scores the nodes of args in [0, MaxExtenderPriority]: the
// model scores every cached node, and the best feasible node among those
// asked about gets the maximum. A node asked about but not cached, or
// infeasible, gets 0.
func (e *Extender) Prioritize(args *extenderv1.ExtenderArgs) (extenderv1.HostPriorityList, error) {
	if args.Pod == nil {
		return nil, errors.New("request has no pod")
	}
	pod, err := serve.PodState(args.Pod)
	if err != nil {
		return nil, err
	}
	b := e.bufs.Get().(*buffers)
	defer e.bufs.Put(b)
	var cached []string
	var index map[string]int
	b.nodes, cached, index = e.cache.Snapshot(e.metrics, b.nodes)
	if len(cached) == 0 {
		return nil, ErrNoNodes
	}
	n := len(cached)
	b.q = grow(b.q, n)
	b.mask = grow(b.mask, n)
	b.score = grow(b.score, n)
	s := e.pool.Get()
	s.Score(&pod, b.nodes, b.q, b.mask)
	e.pool.Put(s)

	asked := names(args)
	// Only the nodes asked about compete; mask them in, in place.
	feasible := b.mask
	inRequest := make([]bool, n)
	for _, name := range asked {
		if i, ok := index[name]; ok {
			inRequest[i] = true
		}
	}
	for i := range feasible {
		feasible[i] = feasible[i] && inRequest[i]
	}
	learn.NormalizeScores(b.q, feasible, extenderv1.MaxExtenderPriority, b.score)
	out := make(extenderv1.HostPriorityList, len(asked))
	for k, name := range asked {
		out[k] = extenderv1.HostPriority{Host: name}
		if i, ok := index[name]; ok {
			out[k].Score = b.score[i]
		}
	}
	return out, nil
}

// Filter keeps the nodes of args whose latency to the users is within the
// pod's hard limit; the others fail as unresolvable (preemption cannot
// bring a node nearer), with the reason.
func (e *Extender) Filter(args *extenderv1.ExtenderArgs) *extenderv1.ExtenderFilterResult {
	if args.Pod == nil {
		return &extenderv1.ExtenderFilterResult{Error: "request has no pod"}
	}
	hard, err := serve.HardLatencyMs(args.Pod)
	if err != nil {
		return &extenderv1.ExtenderFilterResult{Error: err.Error()}
	}
	asked := names(args)
	passed := make([]string, 0, len(asked))
	failed := extenderv1.FailedNodesMap{}
	for _, name := range asked {
		latency := serve.UnknownLatencyMs
		if m := e.metrics.Lookup(name); m.HasLatency {
			latency = m.LatencyMs
		}
		if hard > 0 && latency > hard {
			failed[name] = fmt.Sprintf("node's latency to the users %.1f ms is beyond the pod's hard limit %g ms", latency, hard)
			continue
		}
		passed = append(passed, name)
	}
	res := &extenderv1.ExtenderFilterResult{FailedAndUnresolvableNodes: failed}
	if args.NodeNames != nil {
		res.NodeNames = &passed
	} else if args.Nodes != nil {
		keep := make(map[string]bool, len(passed))
		for _, name := range passed {
			keep[name] = true
		}
		list := &corev1.NodeList{}
		for _, n := range args.Nodes.Items {
			if keep[n.Name] {
				list.Items = append(list.Items, n)
			}
		}
		res.Nodes = list
	}
	return res
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Handler serves the extender's paths.
func (e *Extender) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PathPrioritize, func(w http.ResponseWriter, r *http.Request) {
		args, ok := decode(w, r)
		if !ok {
			return
		}
		list, err := e.Prioritize(args)
		if err != nil {
			// The API has no error field for prioritize: a non-200 answer
			// makes kube-scheduler ignore this extender for the pod (or
			// fail it, unless the extender is ignorable).
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		encode(w, list)
	})
	mux.HandleFunc("POST "+PathFilter, func(w http.ResponseWriter, r *http.Request) {
		args, ok := decode(w, r)
		if !ok {
			return
		}
		encode(w, e.Filter(args))
	})
	mux.HandleFunc("GET "+PathHealthz, func(w http.ResponseWriter, _ *http.Request) {
		nodes, readAt, err := e.metrics.Status()
		fmt.Fprintf(w, "nodes cached: %d\nnodes measured: %d (read %s)\n", e.cache.Len(), nodes, readAt.Format("15:04:05"))
		if err != nil {
			fmt.Fprintf(w, "last Prometheus error: %v\n", err)
		}
	})
	return mux
}

func decode(w http.ResponseWriter, r *http.Request) (*extenderv1.ExtenderArgs, bool) {
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRequestBytes)).Decode(&args); err != nil {
		http.Error(w, fmt.Sprintf("request is not an ExtenderArgs (k8s.io/kube-scheduler/extender/v1): %v", err), http.StatusBadRequest)
		return nil, false
	}
	return &args, true
}

func encode(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		// The client went away; nothing to answer.
		return
	}
}
