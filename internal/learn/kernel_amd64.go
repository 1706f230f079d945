package learn

import "golang.org/x/sys/cpu"

// hasFMA reports whether the processor and the operating system support
// AVX (registers saved by the OS) and FMA3.
var hasFMA = cpu.X86.HasAVX && cpu.X86.HasFMA

//go:noescape
func timesLambda8FMA(h []float64, in int, lambda []float64, z []float64)

// timesLambdaRows sets, for every row r of h (rows of in columns), z's
// row r = h_r·Λ where lambda is Λ (in×out, row-major) and out is
// len(z)/rows. Eight outputs use AVX and FMA where the processor has them.
func timesLambdaRows(h []float64, in int, lambda []float64, z []float64) {
	rows := len(h) / in
	out := len(z) / rows
	if out == 8 && useFMA && len(lambda) >= in*8 && len(z) == rows*8 && len(h) == rows*in {
		timesLambda8FMA(h, in, lambda, z)
		return
	}
	timesLambdaRowsGo(h, in, lambda, z)
}

//go:noescape
func reluTimesLambda8FMA(pre, c, sum, act, lambda, z []float64)

//go:noescape
func reluDot4FMA(pre, c, sum, act, lambda, z []float64)

// reluTimesLambdaRows sets, for every row r of pre (rows of len(c)
// columns), act's row r = max(pre_r + c, 0), adds it into sum, and sets
// z's row r = act_r·Λ where lambda is Λ (len(c)×out, row-major) and out is
// len(z)/rows. One or eight outputs from a multiple of four inputs use
// AVX and FMA where the processor has them.
func reluTimesLambdaRows(pre, c, sum, act, lambda, z []float64) {
	in := len(c)
	if in == 0 || len(pre) == 0 {
		return
	}
	rows := len(pre) / in
	if useFMA && in%4 == 0 && len(z) == rows*8 && len(pre) == rows*in && len(act) == rows*in &&
		len(sum) == in && len(lambda) >= in*8 {
		reluTimesLambda8FMA(pre, c, sum, act, lambda, z)
		return
	}
	if useFMA && in%4 == 0 && len(z) == rows && len(pre) == rows*in && len(act) == rows*in &&
		len(sum) == in && len(lambda) >= in {
		reluDot4FMA(pre, c, sum, act, lambda, z)
		return
	}
	reluTimesLambdaRowsGo(pre, c, sum, act, lambda, z)
}
