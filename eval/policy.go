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
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
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
	// JudgedDivisor is what Judged@k divides by; "" means k, so results
	// written before it existed read the same.
	JudgedDivisor JudgedDivisor `json:"judged_divisor,omitempty"`
	// Like names the tool whose behaviour a preset set (see SetLike), ""
	// for none; ranx's meaning of the names it shares with ragstat follows
	// it.
	Like string `json:"like,omitempty"`
	// Labels says which grades are read where the judgments hold LLM
	// labels (human, llm or ppi); "" when they hold none.
	Labels Labels `json:"labels,omitempty"`
}

// DefaultPolicy is strict: threshold 1, exponential gain, every hole an error.
func DefaultPolicy() Policy {
	return Policy{MinGrade: 1, Gain: metric.Exp, Unjudged: UnjudgedError, Unanswerable: UnanswerableError,
		Queries: QueriesExact, Unit: UnitItem, Scale: judgments.DefaultScale, Order: runs.ByScore}
}

// maxExpGrade is the largest grade exponential gain accepts: 2^g-1 must
// stay finite, and so must a sum of such gains over a ranking of up to
// 2^23 items (2^1000 * 2^23 < the largest float64).
const maxExpGrade = 1000

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
	return "", &diag.OptionError{Scope: "policy", Option: field, Value: s, Msg: msg}
}

// parseUnjudged reads an unjudged-item policy by name.
func parseUnjudged(s string) (Unjudged, error) {
	return oneOf("unjudged", s, UnjudgedError, UnjudgedNonrelevant, UnjudgedSkip, UnjudgedBounds)
}

// parseUnanswerable reads an unanswerable-query policy by name.
func parseUnanswerable(s string) (Unanswerable, error) {
	return oneOf("unanswerable", s, UnanswerableError, UnanswerableExclude, UnanswerableZero)
}

// parseQuerySet reads a query-set policy by name.
func parseQuerySet(s string) (QuerySet, error) {
	return oneOf("queries", s, QueriesExact, QueriesJudged, QueriesRun, QueriesBoth)
}

// parseJudgedDivisor reads a Judged@k divisor by name.
func parseJudgedDivisor(s string) (JudgedDivisor, error) {
	return oneOf("judged_divisor", s, JudgedByK, JudgedByList)
}

// parseLike reads a preset's tool by name; "" is none.
func parseLike(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	return oneOf("like", s, likes...)
}

// parseUnit reads an evaluation unit by name.
func parseUnit(s string) (Unit, error) {
	return oneOf("unit", s, UnitItem, UnitDoc)
}

// Each choice reads its name from text (a saved policy's JSON) as its
// parse function reads it.

func (u *Unjudged) UnmarshalText(b []byte) (err error) {
	*u, err = parseUnjudged(string(b))
	return err
}

func (u *Unanswerable) UnmarshalText(b []byte) (err error) {
	*u, err = parseUnanswerable(string(b))
	return err
}

func (q *QuerySet) UnmarshalText(b []byte) (err error) {
	*q, err = parseQuerySet(string(b))
	return err
}

func (d *JudgedDivisor) UnmarshalText(b []byte) (err error) {
	*d, err = parseJudgedDivisor(string(b))
	return err
}

func (u *Unit) UnmarshalText(b []byte) (err error) {
	*u, err = parseUnit(string(b))
	return err
}

// Validate checks that every choice is set and allowed, and that the
// threshold is a positive grade on the scale (or the scale's top, on a
// scale with no positive grade).
func (p Policy) Validate() error {
	if p.Scale.Min > p.Scale.Max {
		return &diag.OptionError{Scope: "policy", Option: "grades", Value: p.Scale.String(), Msg: "is empty: write MIN..MAX with MIN <= MAX"}
	}
	if err := p.Scale.Threshold(p.MinGrade); err != nil {
		err.(*diag.OptionError).Scope = "policy"
		return err
	}
	if p.Gain != metric.Exp && p.Gain != metric.Linear {
		return &diag.OptionError{Scope: "policy", Option: "gain", Value: strconv.Itoa(int(p.Gain)), Msg: "is unknown: use exp or linear"}
	}
	if p.Gain == metric.Exp && p.Scale.Max > maxExpGrade {
		return &diag.OptionError{Scope: "policy", Option: "gain", Value: "exp", Msg: fmt.Sprintf("over grades up to %d: 2^g-1 is not a finite number beyond grade %d "+
			"(largest usable grade %d); use {gain} linear, or a smaller scale", p.Scale.Max, maxExpGrade, maxExpGrade)}
	}
	if p.JudgedDivisor != "" {
		if _, err := parseJudgedDivisor(string(p.JudgedDivisor)); err != nil {
			return err
		}
	}
	if _, err := parseLike(p.Like); err != nil {
		return err
	}
	if p.Labels != "" {
		if _, err := parseLabels(string(p.Labels)); err != nil {
			return err
		}
	}
	if _, err := runs.ParseOrder(string(p.Order)); err != nil {
		return &diag.OptionError{Scope: "policy", Option: "order", Value: string(p.Order), Msg: "is not score or rank"}
	}
	for _, check := range []func() error{
		func() error { _, err := parseUnjudged(string(p.Unjudged)); return err },
		func() error { _, err := parseUnanswerable(string(p.Unanswerable)); return err },
		func() error { _, err := parseQuerySet(string(p.Queries)); return err },
		func() error { _, err := parseUnit(string(p.Unit)); return err },
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// textFields names the choices in the order String writes them; the last
// three (judged-divisor, like, labels) are written only when they are not
// at their defaults (k, none, none), and may be left out of what
// ParsePolicy reads.
var textFields = []string{"min-grade", "grades", "gain", "unjudged", "unanswerable", "queries", "unit", "order",
	"judged-divisor", "like", "labels"}

// requiredFields is how many of textFields every policy text names.
const requiredFields = 8

// values lists the choices String writes, name and value.
func (p Policy) values() [][2]string {
	vs := []string{strconv.Itoa(p.MinGrade), p.Scale.String(), p.Gain.String(), string(p.Unjudged),
		string(p.Unanswerable), string(p.Queries), string(p.Unit), string(p.Order)}
	if p.JudgedDivisor != "" && p.JudgedDivisor != JudgedByK || p.Like != "" {
		vs = append(vs, string(cmp.Or(p.JudgedDivisor, JudgedByK)))
	}
	if p.Like != "" {
		vs = append(vs, p.Like)
	}
	out := make([][2]string, len(vs))
	for i, v := range vs {
		out[i] = [2]string{textFields[i], v}
	}
	if p.Labels != "" {
		out = append(out, [2]string{"labels", string(p.Labels)})
	}
	return out
}

// String writes the policy on one line: "min-grade 1, grades 0..3, gain
// exp, unjudged error, unanswerable error, queries exact, unit item, order
// score".
func (p Policy) String() string {
	parts := make([]string, len(p.values()))
	for i, v := range p.values() {
		parts[i] = v[0] + " " + v[1]
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
		case "judged-divisor":
			err = out.JudgedDivisor.UnmarshalText([]byte(value))
		case "like":
			out.Like, err = parseLike(value)
		case "labels":
			out.Labels, err = parseLabels(value)
		default:
			return out, fmt.Errorf("policy %q: unknown choice %q: the choices are %s", b, name, strings.Join(textFields, ", "))
		}
		if err != nil {
			return out, fmt.Errorf("policy %q: %s: %w", b, name, err)
		}
	}
	if len(seen)-btoi(seen["judged-divisor"])-btoi(seen["like"])-btoi(seen["labels"]) != requiredFields {
		return out, fmt.Errorf("policy %q: name every choice: %s", b, strings.Join(textFields, ", "))
	}
	return out, out.Validate()
}

// Fields lists the policy as name/value pairs in a fixed order, for headers.
func (p Policy) Fields() [][2]string {
	out := p.values()
	out[2][1] += " (" + p.Gain.Formula() + ", discount log2(rank+1), ideal from all judgments)"
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MetricPolicy is the part of p the arithmetic reads.
func (p Policy) MetricPolicy() metric.Policy {
	return metric.Policy{MinGrade: int32(p.MinGrade), Gain: p.Gain, MaxGrade: int32(p.Scale.Max),
		JudgedOfList: p.JudgedDivisor == JudgedByList}
}

// likes lists the tools a preset can imitate.
var likes = []string{"trec_eval", "pytrec_eval", "ir_measures", "ranx"}

// SetLike sets every policy in which the tool named differs from ragstat's
// strict default to that tool's behaviour, and returns what it set, one
// "name value (why)" each, for the output's notes. The caller applies
// explicit choices afterwards, so they override the preset.
func (p *Policy) SetLike(tool string) ([]string, error) {
	t, err := oneOf("like", tool, likes...)
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
		p.Gain, p.Queries, p.Order = metric.Linear, QueriesBoth, runs.ByScore
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
