package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Layer is one permutation-equivariant layer; its weights are views into
// the network's parameter vector. Lambda and Gamma are In×Out, row-major
// (Lambda[k*Out+j] maps input k to output j).
type Layer struct {
	In, Out int
	Lambda  []float64
	Gamma   []float64
	Bias    []float64
}

// Network is a stack of equivariant layers with a ReLU between layers and
// one output per row. The first layer's inputs are the NodeFeatures node
// columns followed by the PodFeatures pod columns.
type Network struct {
	NodeFeatures int
	PodFeatures  int
	// Hidden are the widths of the hidden layers.
	Hidden []int
	// Params holds every weight and bias; the layers are views into it.
	Params []float64
	Layers []Layer
}

// NewNetwork returns a network with He-initialised weights drawn from seed
// and zero biases.
func NewNetwork(nodeFeatures, podFeatures int, hidden []int, seed uint64) (*Network, error) {
	if nodeFeatures <= 0 {
		return nil, fmt.Errorf("node features %d: must be positive", nodeFeatures)
	}
	if podFeatures < 0 {
		return nil, fmt.Errorf("pod features %d: must not be negative", podFeatures)
	}
	for i, h := range hidden {
		if h <= 0 {
			return nil, fmt.Errorf("hidden[%d] = %d: widths must be positive", i, h)
		}
	}
	n := &Network{NodeFeatures: nodeFeatures, PodFeatures: podFeatures, Hidden: append([]int(nil), hidden...)}
	n.Params = make([]float64, n.paramCount())
	n.bind()
	r := rand.New(rand.NewPCG(seed, 0x6c6561726e))
	for _, l := range n.Layers {
		// Λ and Γ both feed each output, so the fan-in is 2·In.
		std := math.Sqrt(2 / float64(2*l.In))
		for i := range l.Lambda {
			l.Lambda[i] = r.NormFloat64() * std
			l.Gamma[i] = r.NormFloat64() * std
		}
	}
	return n, nil
}

func (n *Network) widths() []int {
	w := []int{n.NodeFeatures + n.PodFeatures}
	w = append(w, n.Hidden...)
	return append(w, 1)
}

func (n *Network) paramCount() int {
	w := n.widths()
	c := 0
	for i := 0; i+1 < len(w); i++ {
		c += 2*w[i]*w[i+1] + w[i+1]
	}
	return c
}

// bind points the layers at their parts of Params.
func (n *Network) bind() {
	w := n.widths()
	n.Layers = n.Layers[:0]
	off := 0
	take := func(c int) []float64 {
		s := n.Params[off : off+c : off+c]
		off += c
		return s
	}
	for i := 0; i+1 < len(w); i++ {
		in, out := w[i], w[i+1]
		n.Layers = append(n.Layers, Layer{In: in, Out: out, Lambda: take(in * out), Gamma: take(in * out), Bias: take(out)})
	}
}

// Clone returns a deep copy of n.
func (n *Network) Clone() *Network {
	c := &Network{NodeFeatures: n.NodeFeatures, PodFeatures: n.PodFeatures, Hidden: append([]int(nil), n.Hidden...)}
	c.Params = append([]float64(nil), n.Params...)
	c.bind()
	return c
}

// CopyFrom sets n's parameters to src's; both must have the same shape.
func (n *Network) CopyFrom(src *Network) { copy(n.Params, src.Params) }

// Workspace holds the activations of one forward pass, for the backward
// pass and so that forward passes do not allocate. A Workspace is used by
// one goroutine at a time.
type Workspace struct {
	rows int
	// acts[l] is layer l's input (rows×In), acts[len] the output; pre[l]
	// is layer l's pre-activation (rows×Out).
	acts [][]float64
	pre  [][]float64
	pool [][]float64
	lt   [][]float64
	c    []float64
	// gradient buffers
	dcur, dnext []float64
	colsum      []float64
}

func (w *Workspace) ensure(n *Network, rows int) {
	if len(w.acts) == len(n.Layers)+1 && rows <= w.rows {
		return
	}
	rows = max(rows, w.rows)
	w.rows = rows
	w.acts = make([][]float64, len(n.Layers)+1)
	w.pre = make([][]float64, len(n.Layers))
	w.pool = make([][]float64, len(n.Layers))
	w.lt = make([][]float64, len(n.Layers))
	widest := 0
	for i, l := range n.Layers {
		in := l.In
		if i == 0 {
			in = n.NodeFeatures
		}
		w.acts[i] = make([]float64, rows*in)
		w.pre[i] = make([]float64, rows*l.Out)
		w.pool[i] = make([]float64, l.In)
		w.lt[i] = make([]float64, l.In*l.Out)
		widest = max(widest, l.In, l.Out)
	}
	w.acts[len(n.Layers)] = make([]float64, rows)
	w.c = make([]float64, widest)
	w.dcur = make([]float64, rows*widest)
	w.dnext = make([]float64, rows*widest)
	w.colsum = make([]float64, widest)
}

// Forward computes one Q-value per row into q (len rows). x holds the node
// columns of every row (rows×NodeFeatures, row-major) and pod the pod
// columns. ws keeps the activations for Backward; Forward does not
// allocate once ws has grown to rows.
func (n *Network) Forward(ws *Workspace, x []float64, rows int, pod []float64, q []float64) {
	ws.ensure(n, rows)
	fn := n.NodeFeatures
	copy(ws.acts[0], x[:rows*fn])
	for li := range n.Layers {
		l := &n.Layers[li]
		in := ws.acts[li]
		width := l.In
		if li == 0 {
			width = fn
		}
		// pooled mean of the input rows; the pod columns are constant, so
		// their mean is the pod itself.
		pool := ws.pool[li]
		clear(pool)
		inv := 1 / float64(rows)
		for i := 0; i < rows; i++ {
			row := in[i*width : i*width+width]
			for k, v := range row {
				pool[k] += v
			}
		}
		for k := 0; k < width; k++ {
			pool[k] *= inv
		}
		if li == 0 {
			copy(pool[fn:], pod)
		}
		// c = b + pool·Γ (+ pod·Λ for the first layer): the same for every row.
		out := l.Out
		c := ws.c[:out]
		copy(c, l.Bias)
		for k := 0; k < l.In; k++ {
			axpy(pool[k], l.Gamma[k*out:k*out+out], c)
		}
		if li == 0 {
			for k := fn; k < l.In; k++ {
				axpy(pool[k], l.Lambda[k*out:k*out+out], c)
			}
		}
		// Λᵀ of the row's columns, so that each output is a dot product
		// kept in registers.
		lt := ws.lt[li][:out*width]
		for k := 0; k < width; k++ {
			for j := 0; j < out; j++ {
				lt[j*width+k] = l.Lambda[k*out+j]
			}
		}
		pre := ws.pre[li]
		last := li == len(n.Layers)-1
		next := ws.acts[li+1]
		for i := 0; i < rows; i++ {
			z := pre[i*out : i*out+out]
			row := in[i*width : i*width+width]
			rowTimes(row, lt, c, z)
			a := next[i*out : i*out+out]
			if last {
				copy(a, z)
				continue
			}
			for j, v := range z {
				a[j] = max(v, 0)
			}
		}
	}
	copy(q[:rows], ws.acts[len(n.Layers)][:rows])
}

// Backward adds to grad (len Params) the gradient of a loss whose
// derivative with respect to the Q-values of the last Forward is dq.
func (n *Network) Backward(ws *Workspace, rows int, pod []float64, dq []float64, grad []float64) {
	fn := n.NodeFeatures
	// dcur holds dL/d(output of layer li), rows×Out.
	dcur := ws.dcur[:rows]
	copy(dcur, dq[:rows])
	off := len(grad)
	for li := len(n.Layers) - 1; li >= 0; li-- {
		l := &n.Layers[li]
		out := l.Out
		width := l.In
		if li == 0 {
			width = fn
		}
		size := 2*l.In*out + out
		off -= size
		gLambda := grad[off : off+l.In*out]
		gGamma := grad[off+l.In*out : off+2*l.In*out]
		gBias := grad[off+2*l.In*out : off+size]
		last := li == len(n.Layers)-1
		pre := ws.pre[li]
		if !last {
			for i := range dcur[:rows*out] {
				if pre[i] <= 0 {
					dcur[i] = 0
				}
			}
		}
		s := ws.colsum[:out]
		clear(s)
		for i := 0; i < rows; i++ {
			d := dcur[i*out : i*out+out]
			for j, v := range d {
				s[j] += v
			}
		}
		in := ws.acts[li]
		pool := ws.pool[li]
		for j, v := range s {
			gBias[j] += v
		}
		for k := 0; k < l.In; k++ {
			axpy(pool[k], s, gGamma[k*out:k*out+out])
		}
		for i := 0; i < rows; i++ {
			d := dcur[i*out : i*out+out]
			row := in[i*width : i*width+width]
			for k, v := range row {
				if v != 0 {
					axpy(v, d, gLambda[k*out:k*out+out])
				}
			}
		}
		if li == 0 {
			for k := fn; k < l.In; k++ {
				axpy(pod[k-fn], s, gLambda[k*out:k*out+out])
			}
			break
		}
		// dL/d(input) = dZ Λᵀ + (1/rows) 1 (s Γᵀ)
		dnext := ws.dnext[:rows*width]
		inv := 1 / float64(rows)
		for k := 0; k < width; k++ {
			ws.c[k] = inv * dot(s, l.Gamma[k*out:k*out+out])
		}
		for i := 0; i < rows; i++ {
			d := dcur[i*out : i*out+out]
			for k := 0; k < width; k++ {
				dnext[i*width+k] = ws.c[k] + dot(d, l.Lambda[k*out:k*out+out])
			}
		}
		ws.dcur, ws.dnext = ws.dnext, ws.dcur
		dcur = ws.dcur
	}
}

func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// rowTimes sets z = c + row·Λ where lt is Λᵀ (len(z) rows of len(row)),
// four outputs at a time.
func rowTimes(row, lt, c, z []float64) {
	w := len(row)
	j := 0
	for ; j+4 <= len(z); j += 4 {
		l0 := lt[j*w : j*w+w]
		l1 := lt[(j+1)*w : (j+1)*w+w]
		l2 := lt[(j+2)*w : (j+2)*w+w]
		l3 := lt[(j+3)*w : (j+3)*w+w]
		s0, s1, s2, s3 := c[j], c[j+1], c[j+2], c[j+3]
		for k, v := range row {
			s0 += v * l0[k]
			s1 += v * l1[k]
			s2 += v * l2[k]
			s3 += v * l3[k]
		}
		z[j], z[j+1], z[j+2], z[j+3] = s0, s1, s2, s3
	}
	for ; j < len(z); j++ {
		z[j] = c[j] + dot(row, lt[j*w:j*w+w])
	}
}
