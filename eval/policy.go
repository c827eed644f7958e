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
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
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
// every score, and it is what a saved result's JSON "policy" object and
// its manifest record. New validates it: the zero Policy means
// DefaultPolicy, and any other Policy must name every choice.
type Policy struct {
	MinGrade     int             `json:"min_grade"` // an item is relevant at this grade or above
	Scale        judgments.Scale `json:"grades"`    // the allowed grades
	Gain         metric.Gain     `json:"gain"`
	Unjudged     Unjudged        `json:"unjudged"`
	Unanswerable Unanswerable    `json:"unanswerable"`
	Queries      QuerySet        `json:"queries"`
	Unit         Unit            `json:"unit"`
	Order        runs.Order      `json:"order"` // how a scored run is ranked
}

// DefaultPolicy is strict: threshold 1, exponential gain, every hole an error.
func DefaultPolicy() Policy {
	return Policy{MinGrade: 1, Gain: metric.Exp, Unjudged: UnjudgedError, Unanswerable: UnanswerableError,
		Queries: QueriesExact, Unit: UnitItem, Scale: judgments.DefaultScale, Order: runs.ByScore}
}

// PolicyError is a policy choice that is missing or not allowed. Field is
// the choice's name as in JSON ("min_grade", "unjudged"), so a command line
// can name its own flag.
type PolicyError struct {
	Field string
	Value string // the value given; empty when none was
	Msg   string
}

func (e *PolicyError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("policy: %s %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("policy: %s %s %s", e.Field, e.Value, e.Msg)
}

func oneOf[T ~string](field, s string, allowed ...T) (T, error) {
	for _, a := range allowed {
		if strings.EqualFold(s, string(a)) {
			return a, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	msg := "is not set: use " + strings.Join(names, ", ")
	if s != "" {
		msg = "is unknown: use " + strings.Join(names, ", ")
	}
	return "", &PolicyError{Field: field, Value: s, Msg: msg}
}

// ParseUnjudged reads an unjudged-item policy by name.
func ParseUnjudged(s string) (Unjudged, error) {
	return oneOf("unjudged", s, UnjudgedError, UnjudgedNonrelevant, UnjudgedSkip, UnjudgedBounds)
}

// ParseUnanswerable reads an unanswerable-query policy by name.
func ParseUnanswerable(s string) (Unanswerable, error) {
	return oneOf("unanswerable", s, UnanswerableError, UnanswerableExclude)
}

// ParseQuerySet reads a query-set policy by name.
func ParseQuerySet(s string) (QuerySet, error) {
	return oneOf("queries", s, QueriesExact, QueriesJudged, QueriesRun)
}

// ParseUnit reads an evaluation unit by name.
func ParseUnit(s string) (Unit, error) {
	return oneOf("unit", s, UnitItem, UnitDoc)
}

// UnmarshalText reads a policy by name, as ParseUnjudged does.
func (u *Unjudged) UnmarshalText(b []byte) (err error) {
	*u, err = ParseUnjudged(string(b))
	return err
}

// UnmarshalText reads a policy by name, as ParseUnanswerable does.
func (u *Unanswerable) UnmarshalText(b []byte) (err error) {
	*u, err = ParseUnanswerable(string(b))
	return err
}

// UnmarshalText reads a policy by name, as ParseQuerySet does.
func (q *QuerySet) UnmarshalText(b []byte) (err error) {
	*q, err = ParseQuerySet(string(b))
	return err
}

// UnmarshalText reads a unit by name, as ParseUnit does.
func (u *Unit) UnmarshalText(b []byte) (err error) {
	*u, err = ParseUnit(string(b))
	return err
}

// Validate checks that every choice is set and allowed, and that the
// threshold is a positive grade on the scale (or the scale's top, on a
// scale with no positive grade).
func (p Policy) Validate() error {
	if p.Scale.Min > p.Scale.Max {
		return &PolicyError{Field: "grades", Value: p.Scale.String(), Msg: "is empty: write MIN..MAX with MIN <= MAX"}
	}
	if !p.Scale.Contains(p.MinGrade) || p.MinGrade <= 0 && p.Scale.Max > 0 {
		return &PolicyError{Field: "min_grade", Value: strconv.Itoa(p.MinGrade),
			Msg: "must be a positive grade on the scale " + p.Scale.String()}
	}
	if p.Gain != metric.Exp && p.Gain != metric.Linear {
		return &PolicyError{Field: "gain", Value: strconv.Itoa(int(p.Gain)), Msg: "is unknown: use exp or linear"}
	}
	if _, err := runs.ParseOrder(string(p.Order)); err != nil {
		return &PolicyError{Field: "order", Value: string(p.Order), Msg: "is not score or rank"}
	}
	for _, check := range []func() error{
		func() error { _, err := ParseUnjudged(string(p.Unjudged)); return err },
		func() error { _, err := ParseUnanswerable(string(p.Unanswerable)); return err },
		func() error { _, err := ParseQuerySet(string(p.Queries)); return err },
		func() error { _, err := ParseUnit(string(p.Unit)); return err },
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// textFields names the choices in the order String writes them.
var textFields = []string{"min-grade", "grades", "gain", "unjudged", "unanswerable", "queries", "unit", "order"}

func (p Policy) values() []string {
	return []string{strconv.Itoa(p.MinGrade), p.Scale.String(), p.Gain.String(), string(p.Unjudged),
		string(p.Unanswerable), string(p.Queries), string(p.Unit), string(p.Order)}
}

// String writes the policy on one line: "min-grade 1, grades 0..3, gain
// exp, unjudged error, unanswerable error, queries exact, unit item, order
// score".
func (p Policy) String() string {
	parts := make([]string, len(textFields))
	for i, v := range p.values() {
		parts[i] = textFields[i] + " " + v
	}
	return strings.Join(parts, ", ")
}

// ParsePolicy reads what String writes: every choice once, in any order,
// and checks the result with Validate. (JSON goes through the struct tags:
// an object with one member a choice, each value checked as it is read.)
func ParsePolicy(b string) (Policy, error) {
	var out Policy
	seen := map[string]bool{}
	for part := range strings.SplitSeq(b, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), " ")
		value = strings.TrimSpace(value)
		if seen[name] {
			return out, fmt.Errorf("policy %q: %s given twice", b, name)
		}
		seen[name] = true
		var err error
		switch name {
		case "min-grade":
			out.MinGrade, err = strconv.Atoi(value)
		case "grades":
			err = out.Scale.UnmarshalText([]byte(value))
		case "gain":
			err = out.Gain.UnmarshalText([]byte(value))
		case "unjudged":
			err = out.Unjudged.UnmarshalText([]byte(value))
		case "unanswerable":
			err = out.Unanswerable.UnmarshalText([]byte(value))
		case "queries":
			err = out.Queries.UnmarshalText([]byte(value))
		case "unit":
			err = out.Unit.UnmarshalText([]byte(value))
		case "order":
			err = out.Order.UnmarshalText([]byte(value))
		default:
			return out, fmt.Errorf("policy %q: unknown choice %q: the choices are %s", b, name, strings.Join(textFields, ", "))
		}
		if err != nil {
			return out, fmt.Errorf("policy %q: %s: %w", b, name, err)
		}
	}
	if len(seen) != len(textFields) {
		return out, fmt.Errorf("policy %q: name every choice: %s", b, strings.Join(textFields, ", "))
	}
	return out, out.Validate()
}

// Fields lists the policy as name/value pairs in a fixed order, for headers.
func (p Policy) Fields() [][2]string {
	out := make([][2]string, len(textFields))
	for i, v := range p.values() {
		out[i] = [2]string{textFields[i], v}
	}
	out[2][1] += " (" + p.Gain.Formula() + ", discount log2(rank+1), ideal from all judgments)"
	return out
}

// metricPolicy is the part of p the arithmetic reads.
func (p Policy) metricPolicy() metric.Policy {
	return metric.Policy{MinGrade: int32(p.MinGrade), Gain: p.Gain}
}
