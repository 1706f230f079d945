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

// podShapes is how many pods' first-layer inputs a CachedScorer keeps. A
// scheduler's queue mixes the pods of a few workloads, and pods of one
// workload request the same: their pod-dependent columns and first-layer
// products are those of the last pod of the same shape but on the nodes
// that changed since.
const podShapes = 4

// CachedScorer scores the same set of nodes for pod after pod, as a
// kube-scheduler plugin does on its snapshot: it keeps each node's
// pod-independent columns and their product with the first layer
// (x_i Λ restricted to those columns), recomputed only when Set is given a
// node that changed. The first layer is linear in the row, so for a pod it
// adds only the columns that depend on the pod (the CPU and memory
// fractions with the pod, the latency beyond its soft limit) and the pod's
// own columns, which are one vector for all rows. Those too are kept, for
// the last podShapes pods that request different resources or limits, and
// recomputed only for the nodes that changed since. The rest of the
// network runs over the rows in chunks on up to GOMAXPROCS goroutines,
// one pass per hidden layer.
//
// Its Q-values are the network's (Scorer.Score on the same nodes) up to
// rounding. A CachedScorer is used by one goroutine at a time, and the
// model's parameters must not change while it is in use.
type CachedScorer struct {
	net   *Network
	nodes []NodeState
	// ver counts each row's changes, so that a shape knows which of its
	// rows are stale.
	ver []uint64
	// x holds each row's node columns with the pod-dependent ones zero;
	// base each row's x_i Λ over them (rows×Out of the first layer).
	x, base []float64
	// lt0 is the first layer's Λᵀ over the node columns (Out×NodeFeatures),
	// so that an output is a dot product.
	lt0    []float64
	shapes [podShapes]podShape
	uses   uint64
	// Per Score: pre[li] is each row's input of layer li's ReLU without
	// the layer's constant (rows×Out), for li ≥ 1 (the first layer's is
	// the shape's); act a hidden layer's output; per-chunk sums of the
	// hidden layers' outputs; the per-layer constants; the pod's columns.
	pre  [][]float64
	act  []float64
	part []float64
	c    [][]float64
	pod  []float64
	zero PodState
	// noBias is the first layer's width of zeros.
	noBias []float64
	phase  phase
}

// podShape is what CachedScorer keeps of one pod: per row, its
// pod-dependent columns, the first layer's product without the constant,
// and the mask, each as of the row's version in ver; per chunk, the sum of
// the rows' node columns with the pod's.
type podShape struct {
	pod  PodState
	used uint64 // 0: holds nothing
	ver  []uint64
	dep  []float64
	a    []float64
	mask []bool
	sums []float64
}

// phase is what the workers of one step of Score share.
type phase struct {
	layer  int
	shape  *podShape
	next   atomic.Int64
	chunks int
	// widest is the width of a chunk's slot in part.
	widest int
}

// NewCachedScorer returns a cached scorer of m for no nodes; Resize and
// Set give it its nodes.
func NewCachedScorer(m *Model) *CachedScorer {
	n := m.Net
	l0 := &n.Layers[0]
	s := &CachedScorer{net: n, pod: make([]float64, n.PodFeatures), noBias: make([]float64, l0.Out)}
	s.lt0 = make([]float64, l0.Out*n.NodeFeatures)
	for k := 0; k < n.NodeFeatures; k++ {
		for j := 0; j < l0.Out; j++ {
			s.lt0[j*n.NodeFeatures+k] = l0.Lambda[k*l0.Out+j]
		}
	}
	for _, l := range n.Layers {
		s.c = append(s.c, make([]float64, l.Out))
	}
	s.pre = make([][]float64, len(n.Layers))
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
		s.ver = append(make([]uint64, 0, n), s.ver...)
		s.x = append(make([]float64, 0, n*fn), s.x...)
		s.base = append(make([]float64, 0, n*o0), s.base...)
	}
	s.nodes, s.ver, s.x, s.base = s.nodes[:n], s.ver[:n], s.x[:n*fn], s.base[:n*o0]
	for i := old; i < n; i++ {
		s.nodes[i] = NodeState{}
		s.encode(i)
	}
	// The chunks' sums change with the rows; the shapes are rebuilt.
	for k := range s.shapes {
		s.shapes[k].used = 0
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
	rowTimes(row, s.lt0, s.noBias, s.base[i*o0:i*o0+o0])
	s.ver[i]++
}

// shape returns the kept shape of pod, or the least recently used one
// emptied for it.
func (s *CachedScorer) shape(pod *PodState) *podShape {
	s.uses++
	var lru *podShape
	for k := range s.shapes {
		sh := &s.shapes[k]
		if sh.used != 0 && sh.pod == *pod {
			sh.used = s.uses
			return sh
		}
		if lru == nil || sh.used < lru.used {
			lru = sh
		}
	}
	rows, o0 := len(s.nodes), s.net.Layers[0].Out
	chunks := (rows + chunkRows - 1) / chunkRows
	lru.pod, lru.used = *pod, s.uses
	lru.ver = growSlice(lru.ver, rows)
	clear(lru.ver) // every row's version is at least 1: all are stale
	lru.dep = grow(lru.dep, rows*3)
	lru.a = grow(lru.a, rows*o0)
	lru.mask = growSlice(lru.mask, rows)
	lru.sums = grow(lru.sums, chunks*s.net.NodeFeatures)
	return lru
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
	widest := 0
	for li, l := range net.Layers {
		if li > 0 {
			s.pre[li] = grow(s.pre[li], rows*l.Out)
		}
		widest = max(widest, l.Out)
	}
	s.act = grow(s.act, rows*widest)
	s.part = grow(s.part, chunks*widest)
	EncodePod(s.pod, pod)
	sh := s.shape(pod)
	s.phase.shape, s.phase.chunks, s.phase.widest = sh, chunks, widest

	// Phase -1 brings the shape's stale rows up to date; then each
	// layer's phase ends with the pooled summary of its output, which
	// makes the next layer's constant.
	s.run(-1, chunks)
	s.constant(0, rows, chunks)
	for li := 0; li < last; li++ {
		s.run(li, chunks)
		s.constant(li+1, rows, chunks)
	}
	if mask != nil {
		copy(mask[:rows], sh.mask)
	}
	c := s.c[last][0]
	out := sh.a
	if last > 0 {
		out = s.pre[last]
	}
	for i := range q[:rows] {
		q[i] = out[i] + c
	}
}

// constant sets layer li's constant c = b + mean(input)Γ (+ pod Λ for the
// first layer) from the per-chunk sums of its input.
func (s *CachedScorer) constant(li, rows, chunks int) {
	net := s.net
	l := &net.Layers[li]
	sums, width, stride := s.part, l.In, s.phase.widest
	if li == 0 {
		sums, width, stride = s.phase.shape.sums, net.NodeFeatures, net.NodeFeatures
	}
	c := s.c[li]
	copy(c, l.Bias)
	inv := 1 / float64(rows)
	for k := 0; k < width; k++ {
		var sum float64
		for ch := 0; ch < chunks; ch++ {
			sum += sums[ch*stride+k]
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

// columns brings the shape's rows lo-hi that changed since it last saw
// them up to date (pod-dependent columns, first-layer product, mask), and
// then, if any did, chunk ch's sum of the rows' first-layer input.
func (s *CachedScorer) columns(ch, lo, hi int) {
	sh := s.phase.shape
	l0 := &s.net.Layers[0]
	out := l0.Out
	l6 := l0.Lambda[colCPUWithPod*out : colCPUWithPod*out+out]
	l7 := l0.Lambda[colMemoryWithPod*out : colMemoryWithPod*out+out]
	l10 := l0.Lambda[colOverSoft*out : colOverSoft*out+out]
	stale := false
	for i := lo; i < hi; i++ {
		if sh.ver[i] == s.ver[i] {
			continue
		}
		stale = true
		sh.ver[i] = s.ver[i]
		n := &s.nodes[i]
		d0, d1, d2 := encodeWithPod(n, &sh.pod)
		sh.dep[i*3], sh.dep[i*3+1], sh.dep[i*3+2] = d0, d1, d2
		sh.mask[i] = sh.pod.Feasible(n)
		a, b := sh.a[i*out:i*out+out], s.base[i*out:i*out+out]
		l6, l7, l10 := l6[:len(a)], l7[:len(a)], l10[:len(a)]
		for j := range a {
			a[j] = b[j] + d0*l6[j] + d1*l7[j] + d2*l10[j]
		}
	}
	if !stale {
		return
	}
	fn := s.net.NodeFeatures
	sum := sh.sums[ch*fn : ch*fn+fn]
	clear(sum)
	for i := lo; i < hi; i++ {
		for k, v := range s.x[i*fn : i*fn+fn] {
			sum[k] += v
		}
		sum[colCPUWithPod] += sh.dep[i*3]
		sum[colMemoryWithPod] += sh.dep[i*3+1]
		sum[colOverSoft] += sh.dep[i*3+2]
	}
}

// layer computes, for rows lo-hi, hidden layer li's output (its input
// plus its constant, through ReLU), sums it into chunk ch's slot and
// multiplies it by the next layer's Λ: the next layer's input without its
// constant, which its own pass (or Score, for the last layer) adds.
func (s *CachedScorer) layer(li, ch, lo, hi int) {
	net := s.net
	out := net.Layers[li].Out
	next := &net.Layers[li+1]
	in := s.pre[li]
	if li == 0 {
		in = s.phase.shape.a
	}
	w := s.phase.widest
	sum := s.part[ch*w : ch*w+out]
	clear(sum)
	act := s.act[lo*out : hi*out]
	reluTimesLambdaRows(in[lo*out:hi*out], s.c[li][:out], sum, act, next.Lambda, s.pre[li+1][lo*next.Out:hi*next.Out])
}

// reluTimesLambdaRowsGo is reluTimesLambdaRows in Go.
func reluTimesLambdaRowsGo(pre, c, sum, act, lambda, z []float64) {
	out := len(c)
	sum = sum[:out]
	for i := range len(pre) / out {
		p := pre[i*out : i*out+out]
		h := act[i*out : i*out+out]
		for j, cj := range c {
			v := max(p[j]+cj, 0)
			h[j] = v
			sum[j] += v
		}
	}
	timesLambdaRows(act, out, lambda, z)
}

// useFMA is whether timesLambdaRows may use the processor's fused
// multiply-add (hasFMA); a test turns it off to check the Go loop.
var useFMA = hasFMA

// timesLambdaRowsGo is timesLambdaRows in Go.
func timesLambdaRowsGo(h []float64, in int, lambda []float64, z []float64) {
	if len(h) == 0 {
		return
	}
	rows := len(h) / in
	out := len(z) / rows
	for r := range rows {
		timesLambda(h[r*in:r*in+in], lambda, z[r*out:r*out+out])
	}
}

// timesLambda sets z = h·Λ where lambda is Λ (len(h)×len(z), row-major),
// eight outputs at a time so that their sums are independent. (Skipping
// the zeros that ReLU leaves in h costs more in mispredicted branches than
// it saves.)
func timesLambda(h, lambda, z []float64) {
	out := len(z)
	j := 0
	for ; j+8 <= out; j += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float64
		for k, v := range h {
			w := lambda[k*out+j : k*out+j+8]
			s0 += v * w[0]
			s1 += v * w[1]
			s2 += v * w[2]
			s3 += v * w[3]
			s4 += v * w[4]
			s5 += v * w[5]
			s6 += v * w[6]
			s7 += v * w[7]
		}
		z[j], z[j+1], z[j+2], z[j+3], z[j+4], z[j+5], z[j+6], z[j+7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; j+4 <= out; j += 4 {
		var s0, s1, s2, s3 float64
		for k, v := range h {
			w := lambda[k*out+j : k*out+j+4]
			s0 += v * w[0]
			s1 += v * w[1]
			s2 += v * w[2]
			s3 += v * w[3]
		}
		z[j], z[j+1], z[j+2], z[j+3] = s0, s1, s2, s3
	}
	for ; j < out; j++ {
		var s0 float64
		for k, v := range h {
			s0 += v * lambda[k*out+j]
		}
		z[j] = s0
	}
}

func growSlice[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
