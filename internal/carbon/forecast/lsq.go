package forecast

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// ridge is the relative ridge penalty of the least squares.
const ridge = 1e-6

// normal accumulates the normal equations of one weighted least-squares
// fit.
type normal struct {
	xx [features][features]float64 // lower triangle
	xy [features]float64
	sw float64
	n  int
}

func (e *normal) add(x *[features]float64, y, w float64) {
	for i := range features {
		e.xy[i] += w * x[i] * y
		for j := 0; j <= i; j++ {
			e.xx[i][j] += w * x[i] * x[j]
		}
	}
	e.sw += w
	e.n++
}

// merge adds o's rows to e.
func (e *normal) merge(o *normal) {
	for i := range features {
		e.xy[i] += o.xy[i]
		for j := 0; j <= i; j++ {
			e.xx[i][j] += o.xx[i][j]
		}
	}
	e.sw += o.sw
	e.n += o.n
}

func (e *normal) solve() ([features]float64, error) {
	return solveCentred(e.xx, e.xy, e.sw)
}

// solveCentred solves the least-squares problem whose sums of products are
// xx (lower triangle; input 0 is the constant 1) and xy over n rows: it
// centres the inputs, adds the relative ridge, and returns the coefficients
// with the intercept first.
func solveCentred(xx [features][features]float64, xy [features]float64, n float64) ([features]float64, error) {
	const p = features - 1
	var mean [features]float64
	for i := 1; i < features; i++ {
		mean[i] = xx[i][0] / n
	}
	meanY := xy[0] / n
	var a [p][p + 1]float64
	for i := 1; i < features; i++ {
		for j := 1; j <= i; j++ {
			c := xx[i][j]/n - mean[i]*mean[j]
			a[i-1][j-1], a[j-1][i-1] = c, c
		}
		a[i-1][p] = xy[i]/n - mean[i]*meanY
	}
	for i := range p {
		a[i][i] += ridge*a[i][i] + 1e-9
	}
	// Gaussian elimination with partial pivoting.
	for col := range p {
		piv := col
		for r := col + 1; r < p; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		if a[piv][col] == 0 {
			return [features]float64{}, fmt.Errorf("singular normal equations at input %d", col+1)
		}
		a[col], a[piv] = a[piv], a[col]
		for r := col + 1; r < p; r++ {
			f := a[r][col] / a[col][col]
			for c := col; c <= p; c++ {
				a[r][c] -= f * a[col][c]
			}
		}
	}
	var coef [features]float64
	for i := p - 1; i >= 0; i-- {
		s := a[i][p]
		for j := i + 1; j < p; j++ {
			s -= a[i][j] * coef[j+1]
		}
		coef[i+1] = s / a[i][i]
	}
	coef[0] = meanY
	for i := 1; i < features; i++ {
		coef[0] -= coef[i] * mean[i]
	}
	return coef, nil
}

// A weighted is a value with its weight.
type weighted struct{ v, w float64 }

// weightedMedian returns the value at which the weights below and above are
// equal (the v that minimises the weighted sum of |v - v'|); it sorts xs.
func weightedMedian(xs []weighted) float64 {
	slices.SortFunc(xs, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
	var total float64
	for _, x := range xs {
		total += x.w
	}
	var acc float64
	for _, x := range xs {
		acc += x.w
		if acc >= total/2 {
			return x.v
		}
	}
	return math.NaN()
}
