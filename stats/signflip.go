package stats

import (
	"math"
	"slices"
	"sort"
)

// SignFlip is a paired randomization test of the null hypothesis that base
// and candidate are exchangeable on every query, so each difference is as
// likely to have either sign. The statistic is the absolute sum of the
// differences (equivalently, of the mean difference); a sign vector counts
// as extreme when its sum is at least as far from zero as the observed one,
// with a slack of 1e-10 times the sum of absolute differences, so that
// arrangements that tie in exact arithmetic still tie after rounding. When
// every difference is zero, every sign vector is extreme and P is 1.
type SignFlip struct {
	// P is the two-sided p-value: Extreme/Total when Exact, which counts
	// the observed signs and their opposite and so is at least 2/2^N; and
	// (Extreme+1)/(Total+1) when sampled, which counts the observed signs
	// once more and is never 0.
	P float64
	// Exact reports whether all 2^N sign vectors were enumerated instead
	// of sampled.
	Exact bool
	// Extreme is the number of extreme sign vectors among Total.
	Extreme int64
	// Total is 2^N when Exact, or the number of random sign vectors drawn.
	Total int64
}

func sampledSignFlip(extreme int64, total int) SignFlip {
	return SignFlip{
		P:       float64(extreme+1) / float64(total+1),
		Extreme: extreme,
		Total:   int64(total),
	}
}

// exactSignFlip enumerates all 2^n sign vectors of d, whose sum is t and
// tie slack tol. It meets in the middle: every sum is a sum a over the first
// half of d plus a sum b over the second, and with the b sorted, the b that
// make |a+b| at least |t| - tol form two runs found by binary search.
func exactSignFlip(d []float64, t, tol float64) SignFlip {
	h := len(d) / 2
	lo, hi := signedSums(d[:h]), signedSums(d[h:])
	slices.Sort(hi)
	total := int64(len(lo)) * int64(len(hi))
	extreme := total
	if thr := math.Abs(t) - tol; thr > 0 {
		extreme = 0
		for _, a := range lo {
			atMost := sort.Search(len(hi), func(i int) bool { return hi[i] > -thr-a })
			below := sort.SearchFloat64s(hi, thr-a)
			extreme += int64(atMost + len(hi) - below)
		}
	}
	return SignFlip{P: float64(extreme) / float64(total), Exact: true, Extreme: extreme, Total: total}
}

// signedSums returns, for every mask below 2^len(d), the sum of d with the
// elements whose bit is set negated.
func signedSums(d []float64) []float64 {
	sums := make([]float64, 1<<len(d))
	for mask := range sums {
		s := 0.0
		for i, x := range d {
			if mask>>i&1 == 1 {
				x = -x
			}
			s += x
		}
		sums[mask] = s
	}
	return sums
}
