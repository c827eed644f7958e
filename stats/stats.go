// Package stats owns the paired statistics behind ragstat compare: for
// per-query values of a base system and a candidate over the same queries,
// it computes means, the mean difference, win/tie/loss counts, a bootstrap
// confidence interval that resamples whole queries, a sign-flip
// randomization test, the paired t-test and Cohen's d_z, and it corrects a
// family of p-values for multiple comparisons.
//
// Everything is a pure function of its inputs. Randomness comes only from
// Options.Seed through PCG streams of math/rand/v2, so the same inputs and
// seed give the same numbers on every machine and for every GOMAXPROCS.
//
// CompareAll is the entry point for one compare run: it evaluates many
// comparisons (metrics × candidates) over the same queries at once, and every
// comparison sees the same resampled query sets and the same sign vectors.
// For a slice of the queries, call it again on Subset of the pairs. Adjust
// then corrects the family of p-values (SignFlip.P, or TTest.P) of all the
// comparisons made.
package stats

import (
	"errors"
	"fmt"
	"math"
)

// Pair holds the per-query values of one comparison: Base[i] and Cand[i]
// are the base system's and the candidate's values on query i. Both slices
// have the same length and list the queries in the same order.
type Pair struct {
	Base, Cand []float64
}

// Difference is what a paired comparison finds about one Pair. Differences are
// Cand[i] - Base[i], so a positive MeanDiff means the candidate scores
// higher on average.
type Difference struct {
	// N is the number of queries.
	N int
	// BaseMean and CandMean are the means of Base and Cand.
	BaseMean, CandMean float64
	// MeanDiff is the mean of the per-query differences; it equals
	// CandMean - BaseMean up to rounding.
	MeanDiff float64
	// SD is the sample standard deviation of the differences (divisor
	// N-1), defined as 0 when N is 1.
	SD float64
	// Wins, Ties and Losses count queries where Cand[i] > Base[i],
	// Cand[i] == Base[i] and Cand[i] < Base[i]. A tie is exact equality of
	// the two float64 values, with no tolerance: values computed by the same
	// code from the same inputs tie, values that differ in the last bit do
	// not. For a metric where lower is better, read wins as losses.
	Wins, Ties, Losses int
	// Bootstrap is the confidence interval of MeanDiff from resampling
	// whole queries.
	Bootstrap Interval
	// SignFlip is the two-sided randomization test of a zero mean
	// difference.
	SignFlip SignFlip
	// TTest is the paired t-test, a second opinion resting on a normal
	// approximation. It is nil when N is 1: with a single query there is
	// no variance to estimate.
	TTest *TTest
	// EffectSize is Cohen's d_z, MeanDiff / SD. When SD is 0 (every
	// difference is the same, or N is 1) it is defined as 0 if MeanDiff is
	// 0 and as +Inf or -Inf, with the sign of MeanDiff, otherwise: every
	// query moved by exactly the same amount. It is never NaN; note that
	// encoding/json rejects infinities.
	EffectSize float64
}

// ErrNoQueries is returned when a comparison has no queries.
var ErrNoQueries = errors.New("stats: no queries to compare")

// Compare compares one base and candidate over the same queries. It is
// CompareAll with a single pair.
func Compare(base, cand []float64, opts Options) (Difference, error) {
	res, err := CompareAll([]Pair{{Base: base, Cand: cand}}, opts)
	if err != nil {
		return Difference{}, err
	}
	return res[0], nil
}

// CompareAll compares every pair, all over the same N queries, and returns
// one Difference per pair in order. The bootstrap resamples and the sign
// vectors are drawn once and shared by all pairs; they depend only on the
// seed and N, so a pair gets the same result alone or in any batch. It
// holds N·len(pairs) differences and Resamples·len(pairs) resampled sums in
// memory. No pairs give no comparisons. It returns ErrNoQueries when N is 0,
// and an error when the options are invalid or the pairs differ in length
// or hold a NaN or infinite value.
func CompareAll(pairs []Pair, opts Options) ([]Difference, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	m, err := newMatrix(pairs)
	if err != nil {
		return nil, err
	}
	exact := m.n <= o.ExactMax
	rs := resample(m, o, exact)
	res := make([]Difference, m.width)
	for c := range res {
		res[c] = m.comparison(c, pairs[c], rs, o, exact)
	}
	return res, nil
}

// Subset returns the pairs restricted to the queries at positions idx, in
// the order of idx, for comparing a slice of the queries. It panics if an
// index is out of range.
func Subset(pairs []Pair, idx []int) []Pair {
	out := make([]Pair, len(pairs))
	for p, pr := range pairs {
		out[p] = Pair{Base: pick(pr.Base, idx), Cand: pick(pr.Cand, idx)}
	}
	return out
}

func pick(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for j, i := range idx {
		out[j] = v[i]
	}
	return out
}

// summary fills the fields of a Difference that need no resampling.
func summary(pr Pair, d []float64) Difference {
	n := len(d)
	r := Difference{N: n}
	for i, b := range pr.Base {
		c := pr.Cand[i]
		r.BaseMean += b
		r.CandMean += c
		switch {
		case c > b:
			r.Wins++
		case c < b:
			r.Losses++
		default:
			r.Ties++
		}
	}
	r.BaseMean /= float64(n)
	r.CandMean /= float64(n)
	r.MeanDiff = mean(d)
	if n > 1 {
		ss := squaredDeviations(d, r.MeanDiff)
		r.SD = math.Sqrt(ss / float64(n-1))
	}
	r.EffectSize = ratio(r.MeanDiff, r.SD)
	return r
}

// ratio returns x/y, defined for y == 0 as 0 when x is 0 and as an
// infinity with the sign of x otherwise.
func ratio(x, y float64) float64 {
	if y == 0 && x == 0 {
		return 0
	}
	if y == 0 {
		return math.Copysign(math.Inf(1), x)
	}
	return x / y
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// squaredDeviations returns the sum of squared deviations of v from m.
func squaredDeviations(v []float64, m float64) float64 {
	sq := 0.0
	for _, x := range v {
		e := x - m
		sq += e * e
	}
	return sq
}

// checkFinite reports the first NaN or infinite value in v.
func checkFinite(v []float64, what string, pair int) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("stats: pair %d: %s value %v at query %d", pair, what, x, i)
		}
	}
	return nil
}
