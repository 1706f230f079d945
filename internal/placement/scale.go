package placement

import "math/bits"

// ScaleScore maps v in [0, top] linearly onto [MinScore, MaxScore], rounding
// down and exact for every int64 (no overflow, no floating point): v == top
// gives MaxScore. Normalizers use it; top must be positive.
func ScaleScore(v, top int64) int64 {
	v = min(max(v, 0), top)
	hi, lo := bits.Mul64(uint64(MaxScore-MinScore), uint64(v))
	q, _ := bits.Div64(hi, lo, uint64(top))
	return MinScore + int64(q)
}
