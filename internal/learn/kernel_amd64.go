package learn

// hasFMA reports whether the processor and the operating system support
// AVX and FMA3: CPUID leaf 1's FMA, OSXSAVE and AVX bits, and XCR0 saving
// the SSE and AVX registers.
var hasFMA = func() bool {
	_, _, ecx, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	eax, _ := xgetbv()
	return eax&6 == 6
}()

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

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
