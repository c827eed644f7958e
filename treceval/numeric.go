package treceval

import "math"

// negNaN is the NaN that x86 arithmetic produces for 0/0, which C prints as
// "-nan".
var negNaN = math.Float64frombits(0xFFF8000000000000)

// cdiv divides as C does on x86: 0/0 gives negNaN.
func cdiv(a, b float64) float64 {
	if v := a / b; v == v {
		return v
	}
	return negNaN
}

// cmax is C's MAX macro: a if a > b, else b (so b when a is NaN).
func cmax(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// log2Table caches log2(i) for the ranks most rankings reach.
var log2Table = func() []float64 {
	t := make([]float64, 4096)
	for i := range t {
		t[i] = math.Log2(float64(i))
	}
	return t
}()

// log2 returns log2(n).
func log2(n int) float64 {
	if n >= 0 && n < len(log2Table) {
		return log2Table[n]
	}
	return math.Log2(float64(n))
}

// msort sorts as glibc's qsort does for small arrays (a top-down merge sort
// that keeps the left element on ties), so that a comparison that is not a
// strict order puts elements where trec_eval puts them.
func msort[T any](a []T, cmp func(x, y T) int) {
	if len(a) <= 1 {
		return
	}
	n1 := len(a) / 2
	msort(a[:n1], cmp)
	msort(a[n1:], cmp)
	merged := make([]T, 0, len(a))
	i, j := 0, n1
	for i < n1 && j < len(a) {
		if cmp(a[i], a[j]) <= 0 {
			merged = append(merged, a[i])
			i++
		} else {
			merged = append(merged, a[j])
			j++
		}
	}
	merged = append(merged, a[i:n1]...)
	copy(a, merged)
}

// log2f returns log2(x) for a non-integral argument.
func log2f(x float64) float64 {
	if x == float64(int(x)) {
		return log2(int(x))
	}
	return math.Log2(x)
}
