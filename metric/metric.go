// Package metric is the pure arithmetic of ranked-list evaluation: given the
// grades of one query's ranked items and all of that query's judgments, it
// computes recall, precision, reciprocal rank, nDCG and the rest at a cutoff.
// A metric never opens a file and never decides what an unjudged item means:
// the caller (package eval) applies those policies before it asks for a number.
package metric

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Unjudged is the grade of a ranked item that has no judgment. Metrics treat
// it as not relevant, bpref ignores it, and Judged@k counts it as a hole.
const Unjudged = math.MinInt32

// Gain turns a grade into the gain nDCG sums.
type Gain int

const (
	// Exp is 2^g - 1: a grade-3 item is worth seven grade-1 items.
	Exp Gain = iota
	// Linear is g itself, trec_eval's ndcg_cut.
	Linear
)

// ParseGain reads "exp" or "linear".
func ParseGain(s string) (Gain, error) {
	switch strings.ToLower(s) {
	case "exp", "exponential":
		return Exp, nil
	case "linear":
		return Linear, nil
	}
	return 0, fmt.Errorf("unknown gain %q: use exp (2^g-1) or linear (g)", s)
}

// String is the name the flag takes.
func (g Gain) String() string {
	if g == Linear {
		return "linear"
	}
	return "exp"
}

// MarshalText writes the gain's name.
func (g Gain) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText reads a gain's name, as ParseGain does.
func (g *Gain) UnmarshalText(b []byte) (err error) {
	*g, err = ParseGain(string(b))
	return err
}

// Formula is the gain written out, for policy headers.
func (g Gain) Formula() string {
	if g == Linear {
		return "g"
	}
	return "2^g-1"
}

// Of is the gain of grade g; grades at or below zero, and unjudged items,
// gain nothing.
func (g Gain) Of(grade int32) float64 {
	if grade <= 0 {
		return 0
	}
	if g == Linear {
		return float64(grade)
	}
	return math.Exp2(float64(grade)) - 1
}

// Policy is what the arithmetic needs to know about relevance.
type Policy struct {
	MinGrade int32 // an item is relevant when its grade is at least this
	Gain     Gain  // gain used by nDCG
}

// List is one query's ranked list, prepared for scoring.
type List struct {
	// Grades holds the grade of each returned item in rank order, Unjudged
	// where the item has no judgment.
	Grades []int32
	// Ideal holds every judged grade of the query, sorted in descending
	// order: the ideal ranking comes from all judgments, never from the run.
	Ideal []int32
}

// NewList sorts ideal (in place) and returns the List.
func NewList(grades, ideal []int32) *List {
	slices.SortFunc(ideal, func(a, b int32) int { return int(b) - int(a) })
	return &List{Grades: grades, Ideal: ideal}
}

// NumRel is the number of judged items at or above the relevance threshold.
func (l *List) NumRel(p Policy) int {
	n := 0
	for _, g := range l.Ideal {
		if g < p.MinGrade {
			break
		}
		n++
	}
	return n
}

// numJudgedNonRel counts judged items below the threshold; negative grades
// count too, since they are judgments (unlike trec_eval's "pooled but
// unjudged" reading, which only its drop-in mode applies).
func (l *List) numJudgedNonRel(p Policy) int { return len(l.Ideal) - l.NumRel(p) }

// prefix is the first k grades, or all of them when k is 0 or beyond the list.
func (l *List) prefix(k int) []int32 {
	if k <= 0 || k > len(l.Grades) {
		return l.Grades
	}
	return l.Grades[:k]
}

func relCount(grades []int32, p Policy) int {
	n := 0
	for _, g := range grades {
		if g >= p.MinGrade {
			n++
		}
	}
	return n
}

func dcg(grades []int32, gain Gain) float64 {
	s := 0.0
	for i, g := range grades {
		if g > 0 {
			s += gain.Of(g) / math.Log2(float64(i)+2)
		}
	}
	return s
}

// Cutoff describes whether a metric family takes a cutoff k.
type Cutoff int

const (
	// NoCutoff: the metric reads the whole list (NumRet, bpref, R-prec).
	NoCutoff Cutoff = iota
	// OptionalCutoff: "@k" limits the list; without it the whole list counts.
	OptionalCutoff
	// NeedsCutoff: the metric means nothing without "@k" (P@k, Judged@k).
	NeedsCutoff
)

// Family is one kind of measurement, such as nDCG, at any cutoff.
type Family struct {
	Name    string   // canonical, ir_measures style: "nDCG"
	Aliases []string // other names, trec_eval's included: "ndcg_cut"
	Cutoff  Cutoff
	Count   bool     // an integer count rather than a fraction in [0,1]
	Formula string   // the definition, printed by `ragstat metrics`
	Reads   []string // the policies that change its value
	compute func(l *List, p Policy, k int) float64
}

// Metric is a Family at a cutoff: nDCG@10. K is 0 for the whole list.
type Metric struct {
	*Family
	K int
}

// Name is the canonical printed name, e.g. "nDCG@10" or "AP".
func (m Metric) Name() string {
	if m.K == 0 {
		return m.Family.Name
	}
	return m.Family.Name + "@" + strconv.Itoa(m.K)
}

// String is Name.
func (m Metric) String() string { return m.Name() }

// Compute scores l under p.
func (m Metric) Compute(l *List, p Policy) float64 { return m.compute(l, p, m.K) }
