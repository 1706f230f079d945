//go:build !amd64

package learn

const hasFMA = false

// timesLambdaRows sets, for every row r of h (rows of in columns), z's
// row r = h_r·Λ where lambda is Λ (in×out, row-major) and out is
// len(z)/rows.
func timesLambdaRows(h []float64, in int, lambda []float64, z []float64) {
	timesLambdaRowsGo(h, in, lambda, z)
}
