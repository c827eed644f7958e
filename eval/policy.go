// Package eval joins judgments with ranked lists and scores them under an
// explicit policy: what counts as relevant, how gain is computed, what an
// unjudged item means, what to do with queries that have no relevant
// judgment, which queries must be present, and what the evaluation unit is.
// It keeps one row of values per query and the macro mean over queries
// (every query weighs the same), streams large runs on all cores, and turns
// every ambiguity in the data into an error that names file, line, query
// and item.
package eval

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
)

// Unjudged says what a returned item without a judgment means.
type Unjudged string

// The unjudged-item policies.
const (
	UnjudgedError       Unjudged = "error"       // every such item is an error
	UnjudgedNonrelevant Unjudged = "nonrelevant" // it counts as grade 0
	UnjudgedSkip        Unjudged = "skip"        // it is removed from the list (condensed list)
	UnjudgedBounds      Unjudged = "bounds"      // [counted non-relevant, counted relevant at the threshold]
)

// Unanswerable says what to do with a query that has no relevant judgment.
type Unanswerable string

// The unanswerable-query policies.
const (
	UnanswerableError   Unanswerable = "error"   // it is an error
	UnanswerableExclude Unanswerable = "exclude" // left out of every mean, listed apart
	UnanswerableZero    Unanswerable = "zero"    // scored (0 where a measure divides by nothing) and kept in every mean, as trec_eval, ranx and ir_measures do
)

// QuerySet says which queries are evaluated.
type QuerySet string

// The query-set policies.
const (
	QueriesExact  QuerySet = "exact"  // judged and run queries must be the same set
	QueriesJudged QuerySet = "judged" // the judged ones; a judged query the run lacks scores as an empty list
	QueriesRun    QuerySet = "run"    // the run's; judged queries the run lacks are left out and listed
	QueriesBoth   QuerySet = "both"   // only those on both sides (trec_eval without -c); the others are listed
)

// JudgedDivisor is what Judged@k divides by.
type JudgedDivisor string

// The Judged@k divisors.
const (
	JudgedByK    JudgedDivisor = "k"    // k itself: a short list counts its missing ranks as holes
	JudgedByList JudgedDivisor = "list" // min(k, |list|), as ir_measures does
)

// Unit is the evaluation unit.
type Unit string

// The evaluation units.
const (
	UnitItem Unit = "item" // each returned item as it is
	UnitDoc  Unit = "doc"  // items mapped to their document, each document kept at its first rank
)

// Policy is every choice that changes a number. It is printed beside
// every score.
type Policy struct {
	MinGrade     int
	Gain         metric.Gain
	Unjudged     Unjudged
	Unanswerable Unanswerable
	Queries      QuerySet
	Unit         Unit
	Scale        judgments.Scale
	Order        string // how lists were ranked: "score" or "rank"
	// JudgedDivisor is what Judged@k divides by.
	JudgedDivisor JudgedDivisor
	// Like names the tool whose behaviour a preset set (see Like), "" for
	// none; ranx's meaning of the names it shares with ragstat follows it.
	Like string
}

// DefaultPolicy is strict: threshold 1, exponential gain, every hole an error.
func DefaultPolicy() Policy {
	return Policy{MinGrade: 1, Gain: metric.Exp, Unjudged: UnjudgedError, Unanswerable: UnanswerableError,
		Queries: QueriesExact, Unit: UnitItem, Scale: judgments.DefaultScale, Order: "score", JudgedDivisor: JudgedByK}
}

// MaxExpGrade is the largest grade exponential gain accepts: 2^g-1 must
// stay finite, and so must a sum of such gains over a ranking of up to
// 2^23 items (2^1000 * 2^23 < the largest float64).
const MaxExpGrade = 1000

// Check refuses a policy whose numbers could not be finite: exponential
// gain over grades so high that 2^g-1 overflows.
func (p Policy) Check() error {
	if p.Gain == metric.Exp && p.Scale.Max > MaxExpGrade {
		return fmt.Errorf("--gain exp over grades up to %d: 2^g-1 is not a finite number beyond grade %d (largest usable grade %d); use --gain linear, or a smaller scale",
			p.Scale.Max, MaxExpGrade, MaxExpGrade)
	}
	return nil
}

func oneOf[T ~string](what, s string, allowed ...T) (T, error) {
	for _, a := range allowed {
		if strings.EqualFold(s, string(a)) {
			return a, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return "", fmt.Errorf("unknown %s %q: use %s", what, s, strings.Join(names, ", "))
}

// ParseUnjudged reads an --unjudged value.
func ParseUnjudged(s string) (Unjudged, error) {
	return oneOf("--unjudged policy", s, UnjudgedError, UnjudgedNonrelevant, UnjudgedSkip, UnjudgedBounds)
}

// ParseUnanswerable reads an --unanswerable value.
func ParseUnanswerable(s string) (Unanswerable, error) {
	return oneOf("--unanswerable policy", s, UnanswerableError, UnanswerableExclude, UnanswerableZero)
}

// ParseQuerySet reads a --queries value.
func ParseQuerySet(s string) (QuerySet, error) {
	return oneOf("--queries policy", s, QueriesExact, QueriesJudged, QueriesRun, QueriesBoth)
}

// ParseJudgedDivisor reads a --judged-divisor value.
func ParseJudgedDivisor(s string) (JudgedDivisor, error) {
	return oneOf("--judged-divisor", s, JudgedByK, JudgedByList)
}

// ParseUnit reads a --unit value.
func ParseUnit(s string) (Unit, error) {
	return oneOf("--unit", s, UnitItem, UnitDoc)
}

// Fields lists the policy as name/value pairs in a fixed order, for headers.
func (p Policy) Fields() [][2]string {
	return [][2]string{
		{"min-grade", fmt.Sprint(p.MinGrade)},
		{"grades", p.Scale.String()},
		{"gain", p.Gain.String() + " (" + p.Gain.Formula() + ", discount log2(rank+1), ideal from all judgments)"},
		{"unjudged", string(p.Unjudged)},
		{"unanswerable", string(p.Unanswerable)},
		{"queries", string(p.Queries)},
		{"unit", string(p.Unit)},
		{"order", p.Order},
		{"judged-divisor", string(p.JudgedDivisor)},
		{"like", likeField(p.Like)},
	}
}

func likeField(like string) string {
	if like == "" {
		return "none"
	}
	return like
}

// MetricPolicy is the part of p the arithmetic reads.
func (p Policy) MetricPolicy() metric.Policy {
	return metric.Policy{MinGrade: int32(p.MinGrade), Gain: p.Gain, MaxGrade: int32(p.Scale.Max),
		JudgedOfList: p.JudgedDivisor == JudgedByList}
}

// Likes lists the tools a preset can imitate.
var Likes = []string{"trec_eval", "pytrec_eval", "ir_measures", "ranx"}

// SetLike sets every policy in which the tool named differs from ragstat's
// strict default to that tool's behaviour, and returns what it set, one
// "name value (why)" each, for the output's notes. The caller applies
// explicit flags afterwards, so they override the preset.
func (p *Policy) SetLike(tool string) ([]string, error) {
	t, err := oneOf("--like", tool, Likes...)
	if err != nil {
		return nil, err
	}
	p.Like = t
	p.Unjudged = UnjudgedNonrelevant
	p.Unanswerable = UnanswerableZero
	set := []string{
		"unjudged nonrelevant (an item without a judgment counts as grade 0)",
		"unanswerable zero (a query without a relevant judgment scores 0 and stays in the means)",
	}
	switch t {
	case "trec_eval", "pytrec_eval":
		p.Gain, p.Queries, p.Order = metric.Linear, QueriesBoth, "score"
		set = append(set, "gain linear (ndcg gain = grade)",
			"queries both (only queries in the judgments and the run; "+t+" skips the others)",
			"order score (score descending, ties by item id descending)")
	case "ir_measures":
		p.Gain, p.Queries, p.JudgedDivisor = metric.Linear, QueriesBoth, JudgedByList
		set = append(set, "gain linear (its nDCG is trec_eval's)",
			"queries both (only queries in the judgments and the run)",
			"judged-divisor list (Judged@k divides by min(k, |list|))")
	case "ranx":
		p.Gain, p.Queries = metric.Linear, QueriesExact
		set = append(set, "gain linear (ranx's ndcg is Jarvelin's; ndcg_burges is 2^g-1)",
			"queries exact (ranx refuses judgments and a run with different queries)",
			"names ndcg@k, dcg@k, recall@k, mrr@k, map@k, precision@k take ranx's meaning")
	}
	return set, nil
}
