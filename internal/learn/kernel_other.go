//go:build !amd64

package learn

const hasFMA = false

// timesLambdaRows sets, for every row r of h (rows of in columns), z's
// row r = h_r·Λ where lambda is Λ (in×out, row-major) and out is
// len(z)/rows.
func timesLambdaRows(h []float64, in int, lambda []float64, z []float64) {
	timesLambdaRowsGo(h, in, lambda, z)
}

// reluTimesLambdaRows sets, for every row r of pre (rows of len(c)
// columns), act's row r = max(pre_r + c, 0), adds it into sum, and sets
// z's row r = act_r·Λ where lambda is Λ (len(c)×out, row-major) and out is
// len(z)/rows.
func reluTimesLambdaRows(pre, c, sum, act, lambda, z []float64) {
	reluTimesLambdaRowsGo(pre, c, sum, act, lambda, z)
}
