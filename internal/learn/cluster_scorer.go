package learn

import "sync"

// ClusterScorer scores member clusters for a workload with a ClusterModel.
// It reuses its buffers and is used by one goroutine at a time;
// ClusterScorerPool shares a model among goroutines.
type ClusterScorer struct {
	model *ClusterModel
	ws    Workspace
	x     []float64
	wl    []float64
}

// NewClusterScorer returns a scorer for m.
func NewClusterScorer(m *ClusterModel) *ClusterScorer {
	return &ClusterScorer{model: m, wl: make([]float64, len(WorkloadColumns))}
}

// Score writes into q (len(clusters)) the Q-value of giving the workload to
// each cluster, and into mask, when not nil, whether the cluster can take a
// replica (ClusterState.Feasible). Every candidate cluster should be
// passed: they all enter the pooled summary.
func (s *ClusterScorer) Score(w *WorkloadState, clusters []ClusterState, q []float64, mask []bool) {
	fc := len(ClusterColumns)
	if cap(s.x) < len(clusters)*fc {
		s.x = make([]float64, len(clusters)*fc)
	}
	x := s.x[:len(clusters)*fc]
	for i := range clusters {
		EncodeCluster(x[i*fc:i*fc+fc], &clusters[i], w)
		if mask != nil {
			mask[i] = clusters[i].Feasible()
		}
	}
	EncodeWorkload(s.wl, w)
	s.model.Net.Forward(&s.ws, x, len(clusters), s.wl, q)
}

// ClusterScorerPool hands out ClusterScorers of one model to concurrent
// callers.
type ClusterScorerPool struct{ pool sync.Pool }

// NewClusterScorerPool returns a pool of scorers for m.
func NewClusterScorerPool(m *ClusterModel) *ClusterScorerPool {
	p := &ClusterScorerPool{}
	p.pool.New = func() any { return NewClusterScorer(m) }
	return p
}

// Get returns a scorer; give it back with Put.
func (p *ClusterScorerPool) Get() *ClusterScorer { return p.pool.Get().(*ClusterScorer) }

// Put returns s to the pool.
func (p *ClusterScorerPool) Put(s *ClusterScorer) { p.pool.Put(s) }
