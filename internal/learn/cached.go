package learn

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// chunkRows is how many rows a worker of CachedScorer.Score takes at a
// time. Sums over rows are kept per chunk and added in chunk order, so the
// Q-values do not depend on how many workers ran.
const chunkRows = 512

// CachedScorer scores the same set of nodes for pod after pod, as a
// kube-scheduler plugin does on its snapshot: it keeps each node's
// pod-independent columns and their product with the first layer
// (x_i Λ restricted to those columns), recomputed only when Set is given a
// node that changed. The first layer is linear in the row, so for a pod it
// adds only the columns that depend on the pod (the CPU and memory
// fractions with the pod, the latency beyond its soft limit) and the pod's
// own columns, which are one vector for all rows. The rest of the network
// runs over the rows in chunks on up to GOMAXPROCS goroutines.
//
// Its Q-values are the network's (Scorer.Score on the same nodes) up to
// rounding. A CachedScorer is used by one goroutine at a time, and the
// model's parameters must not change while it is in use.
type CachedScorer struct {
	net   *Network
	nodes []NodeState
	// x holds each row's node columns with the pod-dependent ones zero;
	// base each row's x_i Λ over them (rows×Out of the first layer).
	x, base []float64
	// lt are the layers' Λᵀ (Out×In; the first layer's over its node
	// columns), so that an output is a dot product.
	lt [][]float64
	// Per Score: the pod-dependent columns (rows×3), the hidden layers'
	// outputs but the last (rows×Out), each row's product of the last
	// hidden layer with the last layer's Λ, per-chunk sums and the
	// per-layer constants.
	dep  []float64
	h    [][]float64
	d    []float64
	part []float64
	c    [][]float64
	pod  []float64
	zero PodState
	// noBias is the first layer's width of zeros.
	noBias []float64
	phase  phase
}

// phase is what the workers of one step of Score share.
type phase struct {
	layer  int
	pod    *PodState
	mask   []bool
	next   atomic.Int64
	chunks int
	// widest is the width of a chunk's slot in part.
	widest int
}

// NewCachedScorer returns a cached scorer of m for no nodes; Resize and
// Set give it its nodes.
func NewCachedScorer(m *Model) *CachedScorer {
	n := m.Net
	s := &CachedScorer{net: n, pod: make([]float64, n.PodFeatures), noBias: make([]float64, n.Layers[0].Out)}
	for li, l := range n.Layers {
		in := l.In
		if li == 0 {
			in = n.NodeFeatures
		}
		lt := make([]float64, l.Out*in)
		for k := 0; k < in; k++ {
			for j := 0; j < l.Out; j++ {
				lt[j*in+k] = l.Lambda[k*l.Out+j]
			}
		}
		s.lt = append(s.lt, lt)
		s.c = append(s.c, make([]float64, l.Out))
	}
	s.h = make([][]float64, len(n.Layers))
	return s
}

// Len is the number of nodes.
func (s *CachedScorer) Len() int { return len(s.nodes) }

// Resize makes the scorer hold n nodes, keeping the first ones; a new node
// is a zero NodeState until Set.
func (s *CachedScorer) Resize(n int) {
	old := len(s.nodes)
	fn, o0 := s.net.NodeFeatures, s.net.Layers[0].Out
	if cap(s.nodes) < n {
		s.nodes = append(make([]NodeState, 0, n), s.nodes...)
		s.x = append(make([]float64, 0, n*fn), s.x...)
		s.base = append(make([]float64, 0, n*o0), s.base...)
	}
	s.nodes, s.x, s.base = s.nodes[:n], s.x[:n*fn], s.base[:n*o0]
	for i := old; i < n; i++ {
		s.nodes[i] = NodeState{}
		s.encode(i)
	}
}

// Node returns node i as last Set; it must not be modified.
func (s *CachedScorer) Node(i int) *NodeState { return &s.nodes[i] }

// Set makes node i n, re-encoding it only when it differs from what it was.
// Calls for distinct nodes may run at once; none may run with Score or
// Resize.
func (s *CachedScorer) Set(i int, n *NodeState) {
	if s.nodes[i] == *n {
		return
	}
	s.nodes[i] = *n
	s.encode(i)
}

func (s *CachedScorer) encode(i int) {
	fn, o0 := s.net.NodeFeatures, s.net.Layers[0].Out
	row := s.x[i*fn : i*fn+fn]
	EncodeNode(row, &s.nodes[i], &s.zero)
	row[colCPUWithPod], row[colMemoryWithPod], row[colOverSoft] = 0, 0, 0
	rowTimes(row, s.lt[0], s.noBias, s.base[i*o0:i*o0+o0])
}

// Score writes into q (len Len()) the Q-value of placing pod on each node
// and into mask, when not nil, whether the node is feasible
// (PodState.Feasible).
func (s *CachedScorer) Score(pod *PodState, q []float64, mask []bool) {
	rows := len(s.nodes)
	if rows == 0 {
		return
	}
	net := s.net
	last := len(net.Layers) - 1
	chunks := (rows + chunkRows - 1) / chunkRows
	widest := net.NodeFeatures
	for li, l := range net.Layers {
		widest = max(widest, l.Out)
		if li < last-1 {
			s.h[li] = grow(s.h[li], rows*l.Out)
		}
	}
	s.dep = grow(s.dep, rows*3)
	s.d = grow(s.d, rows)
	s.part = grow(s.part, chunks*widest)
	EncodePod(s.pod, pod)
	s.phase.pod, s.phase.mask, s.phase.chunks, s.phase.widest = pod, mask, chunks, widest

	// Phase -1: the pod-dependent columns and the first layer's pooled
	// input; then each layer's phase ends with the pooled summary of its
	// output, which makes the next layer's constant.
	s.run(-1, chunks)
	s.constant(0, rows, chunks, widest)
	for li := 0; li < last; li++ {
		s.run(li, chunks)
		s.constant(li+1, rows, chunks, widest)
	}
	if last == 0 {
		s.run(0, chunks)
	}
	c := s.c[last][0]
	for i := range q[:rows] {
		q[i] = s.d[i] + c
	}
}

// constant sets layer li's constant c = b + mean(input)Γ (+ pod Λ for the
// first layer) from the per-chunk sums of its input.
func (s *CachedScorer) constant(li, rows, chunks, widest int) {
	net := s.net
	l := &net.Layers[li]
	width := l.In
	if li == 0 {
		width = net.NodeFeatures
	}
	c := s.c[li]
	copy(c, l.Bias)
	inv := 1 / float64(rows)
	for k := 0; k < width; k++ {
		var sum float64
		for ch := 0; ch < chunks; ch++ {
			sum += s.part[ch*widest+k]
		}
		axpy(sum*inv, l.Gamma[k*l.Out:k*l.Out+l.Out], c)
	}
	if li == 0 {
		for k, v := range s.pod {
			kk := net.NodeFeatures + k
			axpy(v, l.Gamma[kk*l.Out:kk*l.Out+l.Out], c)
			axpy(v, l.Lambda[kk*l.Out:kk*l.Out+l.Out], c)
		}
	}
}

// run runs phase li over every chunk, on up to GOMAXPROCS goroutines.
func (s *CachedScorer) run(li, chunks int) {
	s.phase.layer = li
	s.phase.next.Store(0)
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		s.work()
		return
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(s.work)
	}
	s.work()
	wg.Wait()
}

// work takes chunks of the current phase until none is left.
func (s *CachedScorer) work() {
	rows := len(s.nodes)
	for {
		ch := int(s.phase.next.Add(1) - 1)
		if ch >= s.phase.chunks {
			return
		}
		lo, hi := ch*chunkRows, min((ch+1)*chunkRows, rows)
		if s.phase.layer < 0 {
			s.columns(ch, lo, hi)
		} else {
			s.layer(s.phase.layer, ch, lo, hi)
		}
	}
}

// columns computes rows lo-hi's pod-dependent columns and mask and sums
// their first-layer input into chunk ch's slot.
func (s *CachedScorer) columns(ch, lo, hi int) {
	fn := s.net.NodeFeatures
	pod, mask := s.phase.pod, s.phase.mask
	w := s.phase.widest
	sum := s.part[ch*w : ch*w+fn]
	clear(sum)
	for i := lo; i < hi; i++ {
		n := &s.nodes[i]
		d := s.dep[i*3 : i*3+3]
		d[0], d[1], d[2] = encodeWithPod(n, pod)
		if mask != nil {
			mask[i] = pod.Feasible(n)
		}
		for k, v := range s.x[i*fn : i*fn+fn] {
			sum[k] += v
		}
		sum[colCPUWithPod] += d[0]
		sum[colMemoryWithPod] += d[1]
		sum[colOverSoft] += d[2]
	}
}

// layer computes layer li's output for rows lo-hi and sums it into chunk
// ch's slot; the layer before the last also multiplies its output by the
// last layer's Λ, so the last layer needs no pass of its own.
func (s *CachedScorer) layer(li, ch, lo, hi int) {
	net := s.net
	l := &net.Layers[li]
	out := l.Out
	last := len(net.Layers) - 1
	w := s.phase.widest
	sum := s.part[ch*w : ch*w+out]
	clear(sum)
	var buf [64]float64
	zz := buf[:0]
	if out <= len(buf) {
		zz = buf[:out]
	} else {
		zz = make([]float64, out)
	}
	c := s.c[li]
	var l6, l7, l10 []float64
	if li == 0 {
		l6 = l.Lambda[colCPUWithPod*out : colCPUWithPod*out+out]
		l7 = l.Lambda[colMemoryWithPod*out : colMemoryWithPod*out+out]
		l10 = l.Lambda[colOverSoft*out : colOverSoft*out+out]
	}
	for i := lo; i < hi; i++ {
		if li == 0 {
			b, c := s.base[i*out:i*out+out], c[:out]
			l6, l7, l10 := l6[:out], l7[:out], l10[:out]
			d0, d1, d2 := s.dep[i*3], s.dep[i*3+1], s.dep[i*3+2]
			for j := range zz {
				zz[j] = c[j] + b[j] + d0*l6[j] + d1*l7[j] + d2*l10[j]
			}
		} else {
			prev := net.Layers[li-1].Out
			rowTimes(s.h[li-1][i*prev:i*prev+prev], s.lt[li], c, zz)
		}
		if li == last {
			s.d[i] = zz[0] - c[0] // Score adds the constant back
			continue
		}
		for j, v := range zz {
			zz[j] = max(v, 0)
			sum[j] += zz[j]
		}
		if li == last-1 {
			s.d[i] = dot(zz, net.Layers[last].Lambda)
			continue
		}
		copy(s.h[li][i*out:i*out+out], zz)
	}
}
