package learn

import (
	"math"
	"sync"
)

// Scorer scores nodes for a pod with a Model. A Scorer reuses its buffers
// and is used by one goroutine at a time; NewScorerPool shares a model
// among goroutines (a Score plugin's parallel Score calls, an extender's
// concurrent requests).
type Scorer struct {
	model *Model
	ws    Workspace
	x     []float64
	pod   []float64
}

// NewScorer returns a scorer for m.
func NewScorer(m *Model) *Scorer {
	return &Scorer{model: m, pod: make([]float64, len(PodColumns))}
}

// Score writes into q (len(nodes)) the Q-value of placing pod on each
// node, and into mask, when not nil, whether the node is feasible
// (PodState.Feasible). Every node of the snapshot should be passed, feasible
// or not: they all enter the pooled summary. Score does not allocate once
// its buffers have grown to len(nodes).
func (s *Scorer) Score(pod *PodState, nodes []NodeState, q []float64, mask []bool) {
	fn := len(NodeColumns)
	if cap(s.x) < len(nodes)*fn {
		s.x = make([]float64, len(nodes)*fn)
	}
	x := s.x[:len(nodes)*fn]
	for i := range nodes {
		EncodeNode(x[i*fn:i*fn+fn], &nodes[i], pod)
		if mask != nil {
			mask[i] = pod.Feasible(&nodes[i])
		}
	}
	EncodePod(s.pod, pod)
	s.model.Net.Forward(&s.ws, x, len(nodes), s.pod, q)
}

// Best returns the index of the feasible node with the highest Q-value,
// the first among equals, or -1 when no node is feasible.
func Best(q []float64, mask []bool) int {
	best := -1
	for i, v := range q {
		if mask[i] && (best < 0 || v > q[best]) {
			best = i
		}
	}
	return best
}

// NormalizeScores maps the Q-values of the feasible nodes linearly onto
// [0, maxScore] (kube-scheduler's framework.MaxNodeScore is 100), the best
// node getting maxScore; infeasible nodes get 0. When every feasible node
// has the same Q-value they all get maxScore. out may be of any integer
// type that holds maxScore (a plugin keeping a byte per node).
func NormalizeScores[T ~int64 | ~uint8](q []float64, mask []bool, maxScore int64, out []T) {
	lo, hi := math.Inf(1), math.Inf(-1)
	mask = mask[:len(q)]
	for i, v := range q {
		if mask[i] {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	out = out[:len(q)]
	for i, v := range q {
		switch {
		case !mask[i]:
			out[i] = 0
		case hi == lo:
			out[i] = T(maxScore)
		default:
			out[i] = T(math.Round((v - lo) / (hi - lo) * float64(maxScore)))
		}
	}
}

// ScorerPool hands out Scorers of one model to concurrent callers.
type ScorerPool struct{ pool sync.Pool }

// NewScorerPool returns a pool of scorers for m.
func NewScorerPool(m *Model) *ScorerPool {
	p := &ScorerPool{}
	p.pool.New = func() any { return NewScorer(m) }
	return p
}

// Get returns a scorer; give it back with Put.
func (p *ScorerPool) Get() *Scorer { return p.pool.Get().(*Scorer) }

// Put returns s to the pool.
func (p *ScorerPool) Put(s *Scorer) { p.pool.Put(s) }
