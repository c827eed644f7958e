package stats

import (
	"fmt"
	"math"
	"slices"
)

// matrix holds the per-query differences of all comparisons row-major: row
// i is query i and column c is comparison c, so adding a resample's rows
// reads contiguous memory.
type matrix struct {
	d        []float64
	n, width int
	// sum is the sum of each column in row order, which is how resampled
	// sums are added, so the two compare without rounding surprises.
	sum []float64
	// tol is the slack under which two sums of a column count as equal.
	tol []float64
}

// tieSlack is the relative slack, against the sum of absolute differences,
// under which the sign-flip test treats two sums as equal: arrangements
// that tie in exact arithmetic must not be lost to rounding.
const tieSlack = 1e-10

func newMatrix(pairs []Pair) (matrix, error) {
	n, w := len(pairs[0].Base), len(pairs)
	if n == 0 {
		return matrix{}, ErrNoQueries
	}
	if n > math.MaxInt32-unroll {
		return matrix{}, fmt.Errorf("stats: %d queries is too many", n)
	}
	m := matrix{d: make([]float64, n*w), n: n, width: w, sum: make([]float64, w), tol: make([]float64, w)}
	for c, p := range pairs {
		if len(p.Base) != n || len(p.Cand) != n {
			return matrix{}, fmt.Errorf("stats: pair %d has %d base and %d candidate values, want %d", c, len(p.Base), len(p.Cand), n)
		}
		if err := checkFinite(p.Base, "base", c); err != nil {
			return matrix{}, err
		}
		if err := checkFinite(p.Cand, "candidate", c); err != nil {
			return matrix{}, err
		}
		abs := 0.0
		for i, b := range p.Base {
			x := p.Cand[i] - b
			m.d[i*w+c] = x
			m.sum[c] += x
			abs += math.Abs(x)
		}
		m.tol[c] = tieSlack * abs
	}
	return m, nil
}

// column returns the differences of comparison c.
func (m matrix) column(c int) []float64 {
	v := make([]float64, m.n)
	for i := range v {
		v[i] = m.d[i*m.width+c]
	}
	return v
}

// tileBytes is the size of the block of matrix rows that every list of a
// batch visits before the next block is read, so that the block stays in
// cache.
const tileBytes = 128 << 10

// batchSums sets out[r*width+c] to the sum of column c over the rows of
// lists[r], for every list. Lists must be ascending; batchSums consumes
// them. Each column adds its rows in list order.
func (m matrix) batchSums(lists [][]int32, out []float64) {
	clear(out)
	w := m.width
	tile := max(16, tileBytes/(8*w))
	for start := 0; start < m.n; start += tile {
		end := int32(min(start+tile, m.n))
		for r, l := range lists {
			k, _ := slices.BinarySearch(l, end)
			m.addRows(l[:k], out[r*w:(r+1)*w])
			lists[r] = l[k:]
		}
	}
}

// addRows adds the rows to out, eight columns at a time, whose sums stay in
// registers, then the remaining columns.
func (m matrix) addRows(rows []int32, out []float64) {
	c := 0
	for ; c+8 <= m.width; c += 8 {
		m.add8(rows, c, out[c:c+8])
	}
	if c < m.width {
		m.addTail(rows, c, out[c:])
	}
}

// add8 adds columns c to c+8 of rows to out.
func (m matrix) add8(rows []int32, c int, out []float64) {
	w := m.width
	a0, a1, a2, a3, a4, a5, a6, a7 := out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]
	for _, i := range rows {
		k := int(i)*w + c
		r := m.d[k : k+8 : k+8]
		a0 += r[0]
		a1 += r[1]
		a2 += r[2]
		a3 += r[3]
		a4 += r[4]
		a5 += r[5]
		a6 += r[6]
		a7 += r[7]
	}
	out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7] = a0, a1, a2, a3, a4, a5, a6, a7
}

// addTail adds the columns from c to the end of rows to out.
func (m matrix) addTail(rows []int32, c int, out []float64) {
	w := m.width
	for _, i := range rows {
		r := m.d[int(i)*w+c : int(i)*w+w]
		r = r[:len(out)]
		for j := range out {
			out[j] += r[j]
		}
	}
}

// comparison assembles the result for column c.
func (m matrix) comparison(c int, pr Pair, rs resampled, o Options, exact bool) Difference {
	d := m.column(c)
	r := summary(pr, d)
	means := make([]float64, o.Resamples)
	for j := range means {
		means[j] = rs.boot[j*m.width+c] / float64(m.n)
	}
	slices.Sort(means)
	r.Bootstrap = bootstrapInterval(means, m.sum[c]/float64(m.n), d, o)
	if exact {
		r.SignFlip = exactSignFlip(d, m.sum[c], m.tol[c])
	} else {
		r.SignFlip = sampledSignFlip(rs.extreme[c], o.Randomizations)
	}
	r.TTest = pairedT(m.n, r.MeanDiff, r.SD, o.Level)
	return r
}
