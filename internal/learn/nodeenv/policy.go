package nodeenv

import (
	"math"

	"github.com/meridian-dev/meridian/internal/learn"
)

// Policy chooses a feasible node for a pod.
type Policy interface {
	Name() string
	// Choose returns the index of a node whose mask is true; at least one
	// is.
	Choose(pod *learn.PodState, nodes []learn.NodeState, mask []bool) int
}

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore = 100

// The kube-scheduler NodeResourcesFit strategies and
// NodeResourcesBalancedAllocation, for CPU and memory with weight 1 each
// (the default resources), as
// k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources computes
// them in v1.36 with integer arithmetic. The highest score wins, the first
// node among equals (kube-scheduler draws among them at random; first keeps
// runs reproducible). kube-scheduler scores with the non-zero requests
// (100m and 200 MB for a container that requests nothing); every simulated
// pod requests both, so they are the requests.
type kubeScore struct {
	name  string
	score func(requested, allocated, allocatable [2]int64) int64
}

// LeastAllocated is kube-scheduler's default NodeResourcesFit scoring.
func LeastAllocated() Policy {
	return kubeScore{name: "LeastAllocated", score: func(req, _, alloc [2]int64) int64 {
		return weighted(req, alloc, func(r, c int64) int64 {
			if r > c {
				return 0
			}
			return (c - r) * maxNodeScore / c
		})
	}}
}

// MostAllocated is NodeResourcesFit with the MostAllocated strategy.
func MostAllocated() Policy {
	return kubeScore{name: "MostAllocated", score: func(req, _, alloc [2]int64) int64 {
		return weighted(req, alloc, func(r, c int64) int64 {
			return min(r, c) * maxNodeScore / c
		})
	}}
}

// BalancedAllocation is NodeResourcesBalancedAllocation: 50 plus half of
// (50 plus the change in 100·(1 - std of the fractions) the pod makes).
func BalancedAllocation() Policy {
	return kubeScore{name: "BalancedAllocation", score: func(req, allocated, alloc [2]int64) int64 {
		with, without := balanced(req, alloc), balanced(allocated, alloc)
		return maxNodeScore/2 + (maxNodeScore/2+with-without)/2
	}}
}

func weighted(req, alloc [2]int64, f func(r, c int64) int64) int64 {
	var sum, w int64
	for i := range req {
		if alloc[i] == 0 {
			continue
		}
		sum += f(req[i], alloc[i])
		w++
	}
	if w == 0 {
		return 0
	}
	return sum / w
}

func balanced(req, alloc [2]int64) int64 {
	var fr []float64
	for i := range req {
		if alloc[i] == 0 {
			continue
		}
		fr = append(fr, math.Min(float64(req[i])/float64(alloc[i]), 1))
	}
	std := 0.0
	if len(fr) == 2 {
		std = math.Abs((fr[0] - fr[1]) / 2)
	}
	return int64((1 - std) * maxNodeScore)
}

func (k kubeScore) Name() string { return k.name }

func (k kubeScore) Choose(pod *learn.PodState, nodes []learn.NodeState, mask []bool) int {
	best, bestScore := -1, int64(math.MinInt64)
	for i := range nodes {
		if !mask[i] {
			continue
		}
		n := &nodes[i]
		alloc := [2]int64{n.AllocatableMilliCPU, n.AllocatableMemory}
		allocated := [2]int64{n.RequestedMilliCPU, n.RequestedMemory}
		req := [2]int64{n.RequestedMilliCPU + pod.MilliCPU, n.RequestedMemory + pod.Memory}
		if s := k.score(req, allocated, alloc); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// ModelPolicy places pods where the model's Q-value is highest.
type ModelPolicy struct {
	name string
	s    *learn.Scorer
	q    []float64
}

// NewModelPolicy returns the policy of m, named name.
func NewModelPolicy(name string, m *learn.Model) *ModelPolicy {
	return &ModelPolicy{name: name, s: learn.NewScorer(m)}
}

// Name implements Policy.
func (p *ModelPolicy) Name() string { return p.name }

// Choose implements Policy.
func (p *ModelPolicy) Choose(pod *learn.PodState, nodes []learn.NodeState, mask []bool) int {
	if cap(p.q) < len(nodes) {
		p.q = make([]float64, len(nodes))
	}
	q := p.q[:len(nodes)]
	p.s.Score(pod, nodes, q, nil)
	return learn.Best(q, mask)
}
