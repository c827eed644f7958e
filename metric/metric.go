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

	"github.com/ragstat/ragstat/internal/diag"
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

// of is the gain of grade g; grades at or below zero, and unjudged items,
// gain nothing.
func (g Gain) of(grade int32) float64 {
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
	Gain     Gain  // gain used by nDCG and DCG under ragstat's own names
	MaxGrade int32 // the top of the grade scale: ERR's normaliser 2^max
	// JudgedOfList makes Judged@k divide by min(k, |list|), as ir_measures
	// does, rather than by k.
	JudgedOfList bool
}

// List is one query's ranked list, prepared for scoring.
type List struct {
	// Grades holds the grade of each returned item in rank order, Unjudged
	// where the item has no judgment.
	Grades []int32
	// Ideal holds every judged grade of the query, sorted in descending
	// order: the ideal ranking comes from all judgments, never from the run.
	Ideal []int32
	// Aspects holds the subtopic judgments the diversity metrics read;
	// nil when there are none.
	Aspects *Aspects
}

// NewList sorts ideal (in place) and returns the List.
func NewList(grades, ideal []int32) *List {
	sortDown(ideal)
	return &List{Grades: grades, Ideal: ideal}
}

// sortDown sorts grades from the highest down. A scale has a few grades:
// where they span fewer than 64 values they are counted, which costs no
// mispredicted branch per grade as a comparison sort does.
func sortDown(grades []int32) {
	if len(grades) < 2 {
		return
	}
	lo, hi := slices.Min(grades), slices.Max(grades)
	if int64(hi)-int64(lo) >= 64 {
		slices.Sort(grades) // ascending, then reversed: a sort without a comparison function
		slices.Reverse(grades)
		return
	}
	var count [64]int
	for _, g := range grades {
		count[g-lo]++
	}
	out := grades[:0]
	for v := hi - lo; v >= 0; v-- {
		for range count[v] {
			out = append(out, lo+v)
		}
	}
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

// numJudgedNonRel counts judged items with a grade from 0 up to the
// threshold; a negative grade marks an item pooled but not judged, as in
// trec_eval, and is no judgment of non-relevance.
func (l *List) numJudgedNonRel(p Policy) int {
	n := 0
	for _, g := range l.Ideal[l.NumRel(p):] {
		if g < 0 {
			break
		}
		n++
	}
	return n
}

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

// dcg sums gain(g) / log2(rank+1) over grades in rank order.
func dcg(grades []int32, gain func(int32) float64) float64 {
	s := 0.0
	for i, g := range grades {
		if v := gain(g); v != 0 {
			s += v / discount(i)
		}
	}
	return s
}

// discounts holds log2(i+2) for the first ranks, as math.Log2 computes it.
var discounts = func() (d [1024]float64) {
	for i := range d {
		d[i] = math.Log2(float64(i) + 2)
	}
	return d
}()

// discount is DCG's discount of the item at 0-based position i: log2(i+2),
// the rank plus one.
func discount(i int) float64 {
	if i < len(discounts) {
		return discounts[i]
	}
	return math.Log2(float64(i) + 2)
}

// ratio is a/b, or 0 when b is 0: a measure over nothing scores 0 for
// one query; whether such a query counts is the caller's policy.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
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

// Origin is the tool whose definition a metric name carries.
type Origin string

// The origins of metric names.
const (
	Ragstat  Origin = "ragstat"   // the source document's definitions
	TrecEval Origin = "trec_eval" // NIST trec_eval v10 (and pytrec_eval)
	Ranx     Origin = "ranx"      // the ranx Python library
)

// Aggregate says how per-query values become the summary value.
type Aggregate int

const (
	// Mean is the macro mean: every query weighs the same.
	Mean Aggregate = iota
	// Sum adds the per-query values, as trec_eval sums its num_* counts.
	Sum
	// GeoMean is exp(mean(log(max(v, 0.00001)))), trec_eval's gm_map.
	GeoMean
)

// Param says what a family reads between parentheses (ragstat and
// ir_measures style) or after the dot (trec_eval style).
type Param int

const (
	NoParam  Param = iota
	GainsMap       // gains per grade: 1=1,2=3 or {0:0,1:1,2:3}
	Persist        // RBP's persistence p
	Beta           // set_F's weight of recall
	Level          // a recall level in [0,1]
	Alpha          // alpha-nDCG's novelty discount alpha
)

// Family is one kind of measurement, such as nDCG, at any cutoff.
type Family struct {
	Name    string   // canonical: "nDCG" (ragstat), "ndcg_cut" (trec_eval), "ndcg_burges" (ranx)
	Aliases []string // other names of the same definition: "mrr"
	Origin  Origin
	// Differs says, for a name that comes from another tool, how its
	// definition differs from ragstat's own metric; "" when it is the
	// same. Differs and Formula name the policies they depend on as
	// {option} ({gain}, {min_grade}); Definition writes them out.
	Differs string
	Cutoff  Cutoff
	Count   bool // an integer count rather than a fraction in [0,1]
	Agg     Aggregate
	Param   Param
	Default float64 // the parameter's value when none is given
	// Expand is what a trec_eval name written bare stands for, in
	// trec_eval's parameter syntax ("5,10,15,20,30,100,200,500,1000" for P).
	Expand string
	// Diversity marks a metric that reads subtopic judgments (List.Aspects).
	Diversity bool
	// Shared marks a ranx name that is also one of ragstat's
	// case-insensitive names: it takes ranx's meaning under the ranx
	// preset only.
	Shared  bool
	Formula string   // the definition, options named as in Differs
	Reads   []string // the policies that change its value
	compute func(l *List, p Policy, m Metric) float64
}

// Metric is a Family at a cutoff: nDCG@10. K is 0 for the whole list.
type Metric struct {
	*Family
	K     int
	Value float64  // the parameter (p, beta, recall level); Default when not given
	Gains *GainMap // nDCG with a gain map; nil for the policy's gain
	given bool     // the parameter was written in the name
}

// Name is the printed name, in the style of the tool the name comes from:
// "nDCG@10", "RBP(p=0.9)", "ndcg_cut_10", "set_F_0.5", "ndcg_burges@10".
func (m Metric) Name() string {
	params := m.params()
	if m.Origin == TrecEval {
		switch {
		case m.K > 0:
			return m.Family.Name + "_" + strconv.Itoa(m.K)
		case params != "":
			return m.Family.Name + "_" + params
		}
		return m.Family.Name
	}
	s := m.Family.Name
	if params != "" {
		s += "(" + params + ")"
	}
	if m.K > 0 {
		s += "@" + strconv.Itoa(m.K)
	}
	return s
}

// params writes the parameter as the name's style needs it, "" when it
// was not given.
func (m Metric) params() string {
	if !m.given {
		return ""
	}
	trec := m.Origin == TrecEval
	switch m.Param {
	case GainsMap:
		return m.Gains.format(trec)
	case Persist:
		return "p=" + strconv.FormatFloat(m.Value, 'g', -1, 64)
	case Beta:
		if trec {
			return strconv.FormatFloat(m.Value, 'g', -1, 64)
		}
		return "beta=" + strconv.FormatFloat(m.Value, 'g', -1, 64)
	case Level:
		return strconv.FormatFloat(m.Value, 'f', 2, 64)
	case Alpha:
		return "alpha=" + strconv.FormatFloat(m.Value, 'g', -1, 64)
	}
	return ""
}

// String is Name.
func (m Metric) String() string { return m.Name() }

// Compute scores l under p.
func (m Metric) Compute(l *List, p Policy) float64 { return m.compute(l, p, m) }

// Definition names the definition a column used, for output headers:
// "nDCG@10 = ragstat nDCG (gain 2^g-1)", the options it mentions named by
// names (nil: as the options are named, "gain").
func (m Metric) Definition(p Policy, names func(option string) string) string {
	s := m.Name() + " = " + string(m.Origin) + " " + m.Family.Name
	switch {
	case m.Gains != nil:
		s += " (" + m.Gains.format(false) + ")"
	case m.Origin == Ragstat && slices.Contains(m.Reads, "gain"):
		s += " (gain " + p.Gain.Formula() + ")"
	case slices.Contains(m.Reads, "judged-divisor") && p.JudgedOfList:
		s += " (divided by min(k, |list|), as ir_measures)"
	case slices.Contains(m.Reads, "judged-divisor"):
		s += " (divided by k, even for a shorter list)"
	}
	if m.Differs != "" {
		s += ": " + diag.Expand(m.Differs, names)
	}
	return s
}
