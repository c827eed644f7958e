package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PPIInput holds one metric's per-query values for prediction-powered
// inference (PPI++: Angelopoulos, Duchi and Zrnic 2023).
//
// Filled holds every query's value under the LLM-filled labels: N values,
// one per query of the evaluation, the audited queries included. Human and
// FilledAudited hold the n audited queries' values under human labels and
// under the LLM-filled labels, aligned: Human[i] and FilledAudited[i] are the
// same query, and FilledAudited[i] is that query's entry in Filled.
//
// The audited queries must be a uniform random sample, drawn without
// replacement, of the N queries of Filled: the interval is valid over the
// draw of the audit and over nothing else. A query that was not drawn must
// not be added to the audit because it happens to be fully judged by people.
//
// For a paired difference (compare), pass per-query differences
// (candidate − base) in all three slices: the estimator is linear, so the
// same function gives the mean difference and its interval.
type PPIInput struct {
	Filled               []float64
	Human, FilledAudited []float64
}

// PPIEstimate is what PPI finds about the mean over the N queries under
// human labels.
type PPIEstimate struct {
	// Mean is the prediction-powered estimate θ̂_λ; Lo and Hi bound its
	// normal interval at Level.
	Mean, Lo, Hi float64
	// Lambda is the power-tuning weight, in [0, 1]: 0 ignores the LLM-filled
	// values (the human-only mean), 1 is the original PPI.
	Lambda float64
	// Level is the confidence level of both intervals.
	Level float64
	// N is the number of queries, Audited the number audited.
	N, Audited int
	// FilledMean is the mean of Filled: the LLM-filled estimate, with no
	// correction.
	FilledMean float64
	// HumanMean is the mean of Human; HumanLo and HumanHi bound the
	// classical interval from the audit alone, with the same variance
	// formula at λ = 0.
	HumanMean, HumanLo, HumanHi float64
}

// PPI returns the PPI++ estimate of the mean of the per-query values under
// human labels over all N queries, with its interval at level.
//
// The estimand is the mean over the N queries at hand, as complete human
// judgments would give it: the queries are fixed, the only randomness is
// which n of them the audit drew. The estimator is
//
//	θ̂_λ = mean(Human) + λ·(mean(Filled) − mean(FilledAudited))
//
// and θ̂_λ − θ = mean over the audit of d − mean over all N of d, with
// d = Human − λ·Filled per query. Since Filled covers every query, its mean
// carries no sampling error of its own (the audited queries are part of it,
// not an independent sample as in the paper's setup, where the unlabeled
// data adds λ²·Var(f)/N). The variance of θ̂_λ under sampling without
// replacement is therefore
//
//	(1 − n/N) · s²(Human − λ·FilledAudited) / n
//
// with s² the sample variance (divisor n−1). λ minimises it: λ̂ =
// Cov(Human, FilledAudited) / Var(FilledAudited) from the audit, clipped to
// [0, 1] as in PPI++ (the paper's factor 1/(1 + n/N) belongs to the
// independent-sample variance and is absent here). λ̂ is 0 when the
// FilledAudited values do not vary. The interval is θ̂ ± z·SE, z the normal
// quantile at (1+level)/2. The human-only interval is the same at λ = 0, so
// it is never narrower than the PPI interval on the same audit.
//
// PPI returns an error naming the field when the slices disagree in length,
// fewer than two queries are audited, more are audited than there are
// queries, a value is NaN or infinite, or level is outside (0, 1).
func PPI(in PPIInput, level float64) (PPIEstimate, error) {
	if err := in.validate(level); err != nil {
		return PPIEstimate{}, err
	}
	n, N := len(in.Human), len(in.Filled)
	mh, mfa, mf := mean(in.Human), mean(in.FilledAudited), mean(in.Filled)
	varF, cov := 0.0, 0.0
	for i, h := range in.Human {
		e := in.FilledAudited[i] - mfa
		varF += e * e
		cov += e * (h - mh)
	}
	lambda := 0.0
	if varF > 0 {
		lambda = min(1, max(0, cov/varF))
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	fpc := 1 - float64(n)/float64(N)
	se := func(lambda float64) float64 {
		d := make([]float64, n)
		for i, h := range in.Human {
			d[i] = h - lambda*in.FilledAudited[i]
		}
		return math.Sqrt(fpc * squaredDeviations(d, mean(d)) / float64(n-1) / float64(n))
	}
	est := PPIEstimate{
		Mean:       mh + lambda*(mf-mfa),
		Lambda:     lambda,
		Level:      level,
		N:          N,
		Audited:    n,
		FilledMean: mf,
		HumanMean:  mh,
	}
	half := z * se(lambda)
	est.Lo, est.Hi = est.Mean-half, est.Mean+half
	half = z * se(0)
	est.HumanLo, est.HumanHi = mh-half, mh+half
	return est, nil
}

func (in PPIInput) validate(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("stats: PPI level %v is outside (0, 1)", level)
	}
	n, N := len(in.Human), len(in.Filled)
	if len(in.FilledAudited) != n {
		return fmt.Errorf("stats: PPIInput.Human has %d values and PPIInput.FilledAudited %d: they must be aligned", n, len(in.FilledAudited))
	}
	if n < 2 {
		return fmt.Errorf("stats: PPIInput.Human has %d audited values: at least 2 are needed for an interval", n)
	}
	if n > N {
		return fmt.Errorf("stats: PPIInput.Human has %d audited values but PPIInput.Filled only %d queries: the audit is a subset of the queries", n, N)
	}
	for _, f := range []struct {
		name string
		v    []float64
	}{{"Filled", in.Filled}, {"Human", in.Human}, {"FilledAudited", in.FilledAudited}} {
		for i, x := range f.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("stats: PPIInput.%s[%d] is %v", f.name, i, x)
			}
		}
	}
	return nil
}

// ErrNoExpectedDisagreement is returned by WeightedKappa when the two
// raters' marginal distributions leave no room for chance disagreement
// (both gave every item the same grade): kappa is 0/0 there.
var ErrNoExpectedDisagreement = errors.New("stats: weighted kappa undefined: both raters gave every item the same grade")

// WeightedKappa returns Cohen's weighted kappa between two raters' grades
// of the same items, with quadratic weights w(i, j) = (i − j)² / (grades − 1)²:
//
//	κ = 1 − Σ w·O / Σ w·E
//
// with O the observed proportions of (a, b) grade pairs and E the products
// of the two raters' marginal proportions. It also returns the confusion
// matrix: confusion[i][j] counts items graded i by a and j by b.
//
// Grades run from 0 to grades − 1. WeightedKappa returns an error when the
// slices differ in length or are empty, grades is below 2, or a grade is
// off the scale, and ErrNoExpectedDisagreement (with the confusion matrix)
// when κ is undefined.
func WeightedKappa(a, b []int, grades int) (kappa float64, confusion [][]int, err error) {
	if len(a) != len(b) {
		return 0, nil, fmt.Errorf("stats: weighted kappa: %d grades from the first rater and %d from the second", len(a), len(b))
	}
	if len(a) == 0 {
		return 0, nil, errors.New("stats: weighted kappa: no items")
	}
	if grades < 2 || grades > 1<<16 {
		return 0, nil, fmt.Errorf("stats: weighted kappa: grades %d is outside [2, 65536]", grades)
	}
	confusion = make([][]int, grades)
	for i := range confusion {
		confusion[i] = make([]int, grades)
	}
	ra, rb := make([]float64, grades), make([]float64, grades)
	for i := range a {
		if a[i] < 0 || a[i] >= grades || b[i] < 0 || b[i] >= grades {
			return 0, nil, fmt.Errorf("stats: weighted kappa: item %d has grades %d and %d, off the scale 0..%d", i, a[i], b[i], grades-1)
		}
		confusion[a[i]][b[i]]++
		ra[a[i]]++
		rb[b[i]]++
	}
	total := float64(len(a))
	observed, expected := 0.0, 0.0
	for i := range grades {
		for j := range grades {
			w := float64((i - j) * (i - j))
			observed += w * float64(confusion[i][j]) / total
			expected += w * (ra[i] / total) * (rb[j] / total)
		}
	}
	if expected == 0 {
		return 0, confusion, ErrNoExpectedDisagreement
	}
	return 1 - observed/expected, confusion, nil
}

// KendallTau returns Kendall's τ_b between x and y, which accounts for ties
// in either:
//
//	τ_b = (C − D) / √((P − Tx)·(P − Ty))
//
// with C and D the concordant and discordant pairs, P = n(n−1)/2 and Tx, Ty
// the pairs tied in x and in y. It returns an error when the lengths
// differ, fewer than two values are given, a value is NaN, or every value of
// x or of y is tied (τ_b is 0/0).
func KendallTau(x, y []float64) (float64, error) {
	if len(x) != len(y) {
		return 0, fmt.Errorf("stats: Kendall's tau: x has %d values and y %d", len(x), len(y))
	}
	if len(x) < 2 {
		return 0, fmt.Errorf("stats: Kendall's tau: %d values, at least 2 are needed", len(x))
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return 0, fmt.Errorf("stats: Kendall's tau: value %d is NaN", i)
		}
	}
	var conc, disc, tx, ty int64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			dx, dy := cmpFloat(x[i], x[j]), cmpFloat(y[i], y[j])
			switch {
			case dx == 0 && dy == 0:
				tx++
				ty++
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				conc++
			default:
				disc++
			}
		}
	}
	n := int64(len(x))
	pairs := n * (n - 1) / 2
	if tx == pairs || ty == pairs {
		return 0, errors.New("stats: Kendall's tau: every value of one ranking is tied")
	}
	return float64(conc-disc) / math.Sqrt(float64(pairs-tx)*float64(pairs-ty)), nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
