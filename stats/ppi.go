package stats

import (
	"cmp"
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
// For a paired difference (compare), pass the per-query differences
// (candidate − base) in all three slices: PPI then estimates the mean
// difference over the N queries under human labels, with λ tuned for the
// differences (not the two systems' λ), and its interval.
//
// Exact, when given, holds the values of further queries known exactly:
// queries without an LLM label, whose LLM-filled value is their human
// value. They join the mean with no uncertainty; the audit is then a
// uniform sample of the queries of Filled alone, and N counts both.
type PPIInput struct {
	Filled               []float64
	Human, FilledAudited []float64
	Exact                []float64
}

// PPIEstimate is what PPI finds about the mean over the N queries under
// human labels.
type PPIEstimate struct {
	// Mean is the prediction-powered estimate θ̂_λ; Lo and Hi bound its
	// interval at Level.
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
	// classical interval from the audit alone.
	HumanMean, HumanLo, HumanHi float64
	// SE is the standard error of Mean: the interval is Mean ± t·SE, t
	// Student's quantile with Audited − 1 degrees of freedom.
	SE float64
}

// NoWidth reports whether the interval has no width, up to rounding: SE is
// below a billionth of Mean's size (or of 1).
func (e PPIEstimate) NoWidth() bool { return e.SE <= 1e-9*max(1, math.Abs(e.Mean)) }

// PPI returns the PPI++ estimate of the mean of the per-query values under
// human labels over all N queries, with its interval at level: PPI++'s
// power tuning, the jackknife's variance over the audit with the
// finite-population factor, and Student's t (the derivation is set out in
// the function).
//
// PPI returns an error naming the field when the slices disagree in length,
// fewer than two queries are audited, more are audited than there are
// queries, a value is NaN or infinite, or level is outside (0, 1), and an
// error when values near the float64 range make the interval infinite.
func PPI(in PPIInput, level float64) (PPIEstimate, error) {
	if len(in.Exact) > 0 {
		return in.stratified(level)
	}
	// The estimand is the mean over the N queries at hand, as complete human
	// judgments would give it: the queries are fixed, the only randomness is
	// which n of them the audit drew. The estimator is
	//
	//	θ̂_λ = mean(Human) + λ·(mean(Filled) − mean(FilledAudited))
	//
	// and θ̂_λ − θ = mean over the audit of d − mean over all N of d, with
	// d = Human − λ·Filled per query. Since Filled covers every query, its mean
	// carries no sampling error of its own: the audited queries are part of it,
	// not an independent sample as in the paper's setup, where the unlabeled
	// data adds λ²·Var(f)/N to the variance. Under sampling without
	// replacement the variance of θ̂_λ is
	//
	//	(1 − n/N) · S²(d) / n
	//
	// with S²(d) the variance of d over the N queries. λ minimises it: λ̂ =
	// Cov(Human, FilledAudited) / Var(FilledAudited) from the audit, clipped to
	// [0, 1] as in PPI++ (the paper's factor 1/(1 + n/N) belongs to the
	// independent-sample variance and is absent here); λ̂ is 0 when the
	// FilledAudited values do not vary.
	//
	// Tuning λ on the same audit makes the plug-in variance too small for the
	// audits of 20 to 50 queries that people grade, and so does the normal
	// quantile (bench/README.md has the figures). The variance is therefore the
	// jackknife's over the audit, which re-tunes λ with each audited query left
	// out in turn, times the finite-population factor:
	//
	//	SE² = (1 − n/N) · (n − 1)/n · Σ (θ̂_(i) − θ̂_(·))²
	//
	// and the interval is θ̂ ± t·SE, t Student's quantile at (1+level)/2 with
	// n − 1 degrees of freedom. At a fixed λ the jackknife gives the plug-in
	// variance above exactly; the paper's normal interval is the large-n limit.
	//
	// The human-only interval is the classical one from the audit alone (the
	// same at λ = 0): mean(Human) ± t·√((1 − n/N)·s²(Human)/n), s² with
	// divisor n − 1.
	if err := in.validate(level); err != nil {
		return PPIEstimate{}, err
	}
	n, N := len(in.Human), len(in.Filled)
	mh, mfa, mf := mean(in.Human), mean(in.FilledAudited), mean(in.Filled)
	// Centred on the audit's means: a for Human, b for FilledAudited.
	cov, varF := 0.0, 0.0
	for i, h := range in.Human {
		b := in.FilledAudited[i] - mfa
		cov += (h - mh) * b
		varF += b * b
	}
	est := PPIEstimate{
		Lambda:     tuned(cov, varF, varF),
		Level:      level,
		N:          N,
		Audited:    n,
		FilledMean: mf,
		HumanMean:  mh,
	}
	est.Mean = mh + est.Lambda*(mf-mfa)
	// The leave-one-out estimates, from the audit's sums less query i's
	// share: with m = n − 1 the rest's means are mh − a/m and mfa − b/m,
	// its co-moment cov − a·b·n/m and its second moment of b varF − b²·n/m.
	loo := make([]float64, n)
	m := float64(n - 1)
	for i, h := range in.Human {
		a, b := h-mh, in.FilledAudited[i]-mfa
		lambda := tuned(cov-a*b*float64(n)/m, varF-b*b*float64(n)/m, varF)
		loo[i] = mh - a/m + lambda*(mf-mfa+b/m)
	}
	fpc := 1 - float64(n)/float64(N)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: m}.Quantile((1 + level) / 2)
	est.SE = math.Sqrt(fpc * squaredDeviations(loo, mean(loo)) * m / float64(n))
	half := t * est.SE
	est.Lo, est.Hi = est.Mean-half, est.Mean+half
	half = t * math.Sqrt(fpc*squaredDeviations(in.Human, mh)/m/float64(n))
	est.HumanLo, est.HumanHi = mh-half, mh+half
	for _, v := range []float64{est.Mean, est.Lo, est.Hi, est.FilledMean, est.HumanLo, est.HumanHi, est.SE} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return PPIEstimate{}, errors.New("stats: PPI: the values are too large for their variance to be finite in float64")
		}
	}
	return est, nil
}

// tuned returns the power-tuning weight cov/varF clipped to [0, 1], and 0
// when varF is not above 1e-12 of whole, the whole audit's second moment
// (the FilledAudited values do not vary, up to rounding of the
// leave-one-out sums).
func tuned(cov, varF, whole float64) float64 {
	if !(varF > 1e-12*whole) || whole == 0 {
		return 0
	}
	return min(1, max(0, cov/varF))
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

// maxGrades bounds WeightedKappa's scale, whose confusion matrix has
// grades² cells.
const maxGrades = 1024

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
	if grades < 2 || grades > maxGrades {
		return 0, nil, fmt.Errorf("stats: weighted kappa: grades %d is outside [2, %d]", grades, maxGrades)
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
// the pairs tied in x and in y. It compares every pair, so its time grows
// with n²: it is meant for rankings of systems. It returns an error when
// the lengths differ, fewer than two values are given, a value is NaN, or
// every value of x or of y is tied (τ_b is 0/0).
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
			dx, dy := cmp.Compare(x[i], x[j]), cmp.Compare(y[i], y[j]) // no NaN: refused above
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
