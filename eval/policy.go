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
)

// QuerySet says which queries are evaluated.
type QuerySet string

// The query-set policies.
const (
	QueriesExact  QuerySet = "exact"  // judged and run queries must be the same set
	QueriesJudged QuerySet = "judged" // the judged ones; a judged query the run lacks scores as an empty list
	QueriesRun    QuerySet = "run"    // the run's; judged queries the run lacks are left out and listed
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
}

// DefaultPolicy is strict: threshold 1, exponential gain, every hole an error.
func DefaultPolicy() Policy {
	return Policy{MinGrade: 1, Gain: metric.Exp, Unjudged: UnjudgedError, Unanswerable: UnanswerableError,
		Queries: QueriesExact, Unit: UnitItem, Scale: judgments.DefaultScale, Order: "score"}
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
	return oneOf("--unanswerable policy", s, UnanswerableError, UnanswerableExclude)
}

// ParseQuerySet reads a --queries value.
func ParseQuerySet(s string) (QuerySet, error) {
	return oneOf("--queries policy", s, QueriesExact, QueriesJudged, QueriesRun)
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
	}
}

// metricPolicy is the part of p the arithmetic reads.
func (p Policy) metricPolicy() metric.Policy {
	return metric.Policy{MinGrade: int32(p.MinGrade), Gain: p.Gain}
}
