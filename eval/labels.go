package eval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stats"
)

// Labels says which grades an evaluation reads when its judgments hold
// LLM labels beside people's grades (judgments.Judgment.LLM). It is part
// of the Policy, printed with it.
type Labels string

// The label choices.
const (
	// LabelsHuman reads people's grades alone: the LLM labels are ignored
	// and the holes follow the unjudged policy.
	LabelsHuman Labels = "human"
	// LabelsLLM fills the holes people left with the LLM's labels.
	LabelsLLM Labels = "llm"
	// LabelsPPI scores every query under the LLM-filled labels and
	// corrects each mean with the human audit: the PPI++ estimate with its
	// interval (Correction).
	LabelsPPI Labels = "ppi"
)

// parseLabels reads a label choice by name.
func parseLabels(s string) (Labels, error) {
	return oneOf("labels", s, LabelsHuman, LabelsLLM, LabelsPPI)
}

// UnmarshalText reads a label choice by name: human, llm or ppi.
func (l *Labels) UnmarshalText(b []byte) (err error) {
	*l, err = parseLabels(string(b))
	return err
}

// view is the reading of the judgments l scores each query with: people's
// grades alone, people's over the LLM's, or (ppi) the LLM's over people's,
// the same on audited pairs as on the others.
func (l Labels) view() judgments.View {
	switch l {
	case LabelsLLM:
		return judgments.HumanOverLLM
	case LabelsPPI:
		return judgments.LLMOverHuman
	}
	return judgments.Human
}

// describe says in words what l reads.
func (l Labels) describe() string {
	switch l {
	case LabelsHuman:
		return "people's grades alone; the LLM labels are ignored"
	case LabelsLLM:
		return "the LLM labels fill the holes people left; a person's grade wins over an LLM label"
	case LabelsPPI:
		return "every query under the LLM-filled labels; each mean the PPI++ estimate, corrected by the human audit"
	}
	return "people's grades (the judgments hold no LLM label)"
}

// Choose is set as the choice l reads it (a set of plain grades), and the
// notes that say what was read. Judgments that hold LLM labels need a
// choice: without one Choose returns an OptionError naming labels and
// the three choices, so that no one reads an LLM-filled number unawares.
// ppi needs LLM labels to correct.
func (l Labels) Choose(set *judgments.Set) (*judgments.Set, []string, error) {
	n := set.LLMLen()
	switch {
	case n == 0 && l == LabelsPPI:
		return nil, nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(l), Msg: "corrects LLM labels with a human audit: the judgments hold no LLM label"}
	case n == 0:
		return set, nil, nil
	case l == "":
		return nil, nil, &diag.OptionError{Scope: "policy", Option: "labels", Msg: fmt.Sprintf("is not set: the judgments hold %d LLM labels (judge %s); "+
			"choose human (people's grades alone), llm (the LLM labels fill the holes) or ppi (the LLM-filled means corrected by the human audit, with their intervals)",
			n, strings.Join(set.Models(), ", "))}
	}
	view, err := set.View(l.view())
	if err != nil {
		return nil, nil, err
	}
	notes := []string{fmt.Sprintf("labels %s: %s (%d LLM labels from %s)", l, l.describe(), n, strings.Join(set.Models(), ", "))}
	return view, notes, nil
}

// Correction is what the PPI++ means need beside the LLM-filled evaluation:
// people's grades on the audited queries, and the human-only bounds.
type Correction struct {
	// Human scores the audited queries under people's grades alone, with
	// the evaluation's policy; Bounds scores every query under people's
	// grades with unjudged items as [low, high].
	Human, Bounds *Evaluator
	Audit         judgments.Audit
	Level         float64 // of the intervals
	labelled      map[string]bool
	audited       map[string]bool
}

// NewCorrection prepares the correction of an evaluation of set (with its
// LLM labels) under policy p (ppi), metrics ms and docOf as New takes them,
// at level. The audited queries must be a uniform random draw of those
// with LLM labels (judge fill --audit marks it): a query fully graded by
// people that was not drawn is left out, as choosing it would bias the
// estimate. Fewer than two audited queries is an error.
func NewCorrection(set *judgments.Set, p Policy, ms []metric.Metric, docOf func(string) string, level float64) (*Correction, error) {
	switch {
	case p.Unjudged == UnjudgedBounds:
		return nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(LabelsPPI),
			Msg: "needs one value per query: {unjudged} bounds gives two (the human-only bounds are printed beside the estimate anyway)"}
	case p.Unanswerable == UnanswerableExclude:
		return nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(LabelsPPI),
			Msg: "needs every query scored under both readings: {unanswerable} exclude may leave a query out of one; use error or zero"}
	case !(level > 0 && level < 1):
		return nil, &diag.OptionError{Scope: "policy", Option: "confidence", Value: fmt.Sprint(level), Msg: "must lie strictly between 0 and 1"}
	}
	c := &Correction{Audit: set.Audit(), Level: level, labelled: map[string]bool{}, audited: map[string]bool{}}
	for _, q := range c.Audit.Labelled {
		c.labelled[q] = true
	}
	for _, q := range c.Audit.Audited {
		c.audited[q] = true
	}
	if n := len(c.Audit.Audited); n < 2 {
		return nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(LabelsPPI),
			Msg: fmt.Sprintf("needs at least 2 audited queries (every LLM label of the query graded by a person), and %d is: "+
				"draw an audit (judge fill with {audit}), grade its queue in judge serve, and give judge export's file with the others", n)}
	}
	human, err := set.View(judgments.Human)
	if err != nil {
		return nil, err
	}
	keep := func(q string) bool { return c.audited[q] }
	if c.Human, err = New(human.Subset(keep), p, ms, docOf); err != nil {
		return nil, err
	}
	c.Human.Restrict(keep)
	pb := p
	pb.Unjudged = UnjudgedBounds
	if c.Bounds, err = New(human, pb, ms, docOf); err != nil {
		return nil, err
	}
	return c, nil
}

// Labelled reports whether query holds an LLM label.
func (c *Correction) Labelled(query string) bool { return c.labelled[query] }

// Audited reports whether query is audited: drawn, and its every LLM label
// graded by a person.
func (c *Correction) Audited(query string) bool { return c.audited[query] }

// UseSubtopics gives the correction's evaluators the subtopic judgments.
func (c *Correction) UseSubtopics(st *judgments.Subtopics) error {
	return errors.Join(c.Human.UseSubtopics(st), c.Bounds.UseSubtopics(st))
}

// Notes say what the audit holds: queries drawn but not yet fully graded,
// and queries fully graded though not drawn (left out).
func (c *Correction) Notes() []string {
	a := c.Audit
	out := []string{fmt.Sprintf("audit: %d of the %d queries with LLM labels audited (every LLM label graded by a person)", len(a.Audited), len(a.Labelled))}
	if len(a.Drawn) == 0 {
		out = append(out, "audit: no draw is recorded in the judgments (no label is marked audit, as a fill that draws one marks them): the interval holds only if the audited queries were chosen uniformly at random")
	}
	if len(a.Missing) > 0 {
		qs := slices.Sorted(func(yield func(string) bool) {
			for q := range a.Missing {
				if !yield(q) {
					return
				}
			}
		})
		out = append(out, fmt.Sprintf("audit: %d drawn queries are not yet fully graded and are left out (the interval assumes they are missing at random): %s", len(qs), sample(qs)))
	}
	if len(a.Undrawn) > 0 {
		out = append(out, fmt.Sprintf("audit: %d queries graded in full by people but not drawn are left out of the audit: %s", len(a.Undrawn), sample(a.Undrawn)))
	}
	return out
}

// PPIResult is one run's means corrected by the human audit.
type PPIResult struct {
	Run string `json:"run"`
	// Queries are the queries evaluated, Labelled those of them with LLM
	// labels (the others are known exactly), Audited those audited.
	Queries  int     `json:"queries"`
	Labelled int     `json:"labelled"`
	Audited  int     `json:"audited"`
	Level    float64 `json:"level"`
	// Metrics hold the estimates, in the result's metric order.
	Metrics []PPIMetric `json:"metrics"`
	// BoundsError says why the human-only bounds could not be computed;
	// "" when they were.
	BoundsError string `json:"bounds_error,omitempty"`
}

// PPIMetric is one metric's PPI++ estimate of the mean under people's
// grades over every query evaluated.
type PPIMetric struct {
	Metric string  `json:"metric"`
	Mean   float64 `json:"mean"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	// Lambda is the power-tuning weight: 0 ignores the LLM labels, 1 is
	// the original PPI.
	Lambda float64 `json:"lambda"`
	// Filled is the mean under the LLM-filled labels, uncorrected.
	Filled float64 `json:"llm_filled_mean"`
	// Audit, AuditLow and AuditHigh are the mean and classical interval
	// from the audit alone (the queries without LLM labels exact).
	Audit     float64 `json:"audit_mean"`
	AuditLow  float64 `json:"audit_low"`
	AuditHigh float64 `json:"audit_high"`
	// HumanLow and HumanHigh are the human-only bounds: people's grades
	// alone, unjudged items non-relevant, then relevant; nil when they
	// could not be computed (PPIResult.BoundsError).
	HumanLow  *float64 `json:"human_low,omitempty"`
	HumanHigh *float64 `json:"human_high,omitempty"`
	// AuditedHuman and AuditedFilled are the means over the audited
	// queries under people's grades and under the LLM-filled labels: the
	// systems' rankings are compared on them (RankAgreement).
	AuditedHuman  float64 `json:"audited_human_mean"`
	AuditedFilled float64 `json:"audited_llm_filled_mean"`
	// NoWidth marks an interval of no width though some queries with LLM
	// labels are not audited: the audited ones showed no disagreement,
	// which does not show there is none elsewhere.
	NoWidth bool `json:"no_width,omitempty"`
}

// Estimate corrects filled, a run evaluated under the LLM-filled labels,
// with human, the same run under people's grades on the audited queries
// (c.Human), and bounds, under people's grades with unjudged items as
// bounds (c.Bounds; nil, with boundsErr, when that evaluation failed). A
// query without LLM labels is known exactly; the others' mean is
// estimated from the audit (stats.PPI).
func (c *Correction) Estimate(filled, human, bounds *Result, boundsErr error) (*PPIResult, error) {
	humanRows := map[string]Row{}
	for _, r := range human.Rows {
		humanRows[r.Query] = r
	}
	out := &PPIResult{Run: filled.Name, Queries: len(filled.Rows), Level: c.Level}
	ins := make([]stats.PPIInput, len(filled.Metrics))
	audHuman, audFilled := make([]float64, len(filled.Metrics)), make([]float64, len(filled.Metrics))
	for _, r := range filled.Rows {
		if !c.labelled[r.Query] {
			for m := range ins {
				ins[m].Exact = append(ins[m].Exact, r.Values[m])
			}
			continue
		}
		out.Labelled++
		for m := range ins {
			ins[m].Filled = append(ins[m].Filled, r.Values[m])
		}
		if !c.audited[r.Query] {
			continue
		}
		h, ok := humanRows[r.Query]
		if !ok {
			return nil, fmt.Errorf("%s: audited query %q has no value under people's grades", filled.Name, r.Query)
		}
		out.Audited++
		for m := range ins {
			ins[m].Human = append(ins[m].Human, h.Values[m])
			ins[m].FilledAudited = append(ins[m].FilledAudited, r.Values[m])
			audHuman[m] += h.Values[m]
			audFilled[m] += r.Values[m]
		}
	}
	if out.Audited < 2 {
		return nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(LabelsPPI),
			Msg: fmt.Sprintf(": %s holds %d audited queries among those evaluated; at least 2 are needed", filled.Name, out.Audited)}
	}
	if boundsErr != nil {
		out.BoundsError = firstLine(boundsErr.Error())
	}
	for m, in := range ins {
		est, err := stats.PPI(in, c.Level)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", filled.Name, filled.Metrics[m].Name(), err)
		}
		pm := PPIMetric{Metric: filled.Metrics[m].Name(), Mean: est.Mean, Low: est.Lo, High: est.Hi, Lambda: est.Lambda,
			Filled: est.FilledMean, Audit: est.HumanMean, AuditLow: est.HumanLo, AuditHigh: est.HumanHi,
			AuditedHuman: audHuman[m] / float64(out.Audited), AuditedFilled: audFilled[m] / float64(out.Audited),
			NoWidth: est.NoWidth() && out.Audited < out.Labelled}
		if bounds != nil {
			lo, hi := bounds.Mean[m], bounds.MeanHigh[m]
			pm.HumanLow, pm.HumanHigh = &lo, &hi
		}
		out.Metrics = append(out.Metrics, pm)
	}
	return out, nil
}

// Apply makes res's means the PPI++ estimates.
func (p *PPIResult) Apply(res *Result) {
	for m, pm := range p.Metrics {
		res.Mean[m] = pm.Mean
	}
	res.MeanHigh = nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Agreement is how the LLM's labels agree with people's grades of the same
// pairs (the audit), and how the systems' rankings agree.
type Agreement struct {
	Pairs int `json:"pairs"`
	// Kappa is Cohen's weighted kappa, quadratic weights over Grades; nil
	// when it is undefined (KappaNote says why).
	Kappa     *float64        `json:"weighted_kappa,omitempty"`
	KappaNote string          `json:"kappa_note,omitempty"`
	Grades    judgments.Scale `json:"grades"`
	// Confusion counts the pairs by person's grade (rows, from Grades.Min)
	// and LLM's grade (columns).
	Confusion [][]int `json:"confusion"`
	// Rankings compare, metric by metric, the systems' rankings over the
	// audited queries under people's grades and under the LLM-filled
	// labels (three systems or more).
	Rankings []RankAgreement `json:"rankings,omitempty"`
}

// RankAgreement is Kendall's tau between two rankings of the systems by
// one metric.
type RankAgreement struct {
	Metric  string   `json:"metric"`
	Systems int      `json:"systems"`
	Tau     *float64 `json:"kendall_tau,omitempty"` // nil when undefined (every system tied)
}

// Agree measures how the LLM labels of set agree with people's grades of
// the same pairs, on scale; nil when no pair carries both.
func Agree(set *judgments.Set, scale judgments.Scale) (*Agreement, error) {
	human, llm := set.Paired()
	if len(human) == 0 {
		return nil, nil
	}
	a := &Agreement{Pairs: len(human), Grades: scale}
	shift := func(gs []int) ([]int, error) {
		out := make([]int, len(gs))
		for i, g := range gs {
			if !scale.Contains(g) {
				return nil, fmt.Errorf("grade %d is off the scale %s of the agreement", g, scale)
			}
			out[i] = g - scale.Min
		}
		return out, nil
	}
	h, err := shift(human)
	if err != nil {
		return nil, err
	}
	l, err := shift(llm)
	if err != nil {
		return nil, err
	}
	kappa, confusion, err := stats.WeightedKappa(h, l, scale.Max-scale.Min+1)
	switch {
	case errors.Is(err, stats.ErrNoExpectedDisagreement):
		a.KappaNote = "undefined: people and the LLM each gave every pair one grade"
	case err != nil:
		return nil, err
	default:
		a.Kappa = &kappa
	}
	a.Confusion = confusion
	return a, nil
}

// RankAgreements compares the runs' rankings metric by metric (at least
// three runs): Kendall's tau-b between their means over the audited
// queries under people's grades and under the LLM-filled labels.
func RankAgreements(runs []*PPIResult) []RankAgreement {
	if len(runs) < 3 {
		return nil
	}
	var out []RankAgreement
	for m := range runs[0].Metrics {
		x, y := make([]float64, len(runs)), make([]float64, len(runs))
		for i, r := range runs {
			x[i], y[i] = r.Metrics[m].AuditedHuman, r.Metrics[m].AuditedFilled
		}
		ra := RankAgreement{Metric: runs[0].Metrics[m].Metric, Systems: len(runs)}
		if tau, err := stats.KendallTau(x, y); err == nil && !math.IsNaN(tau) {
			ra.Tau = &tau
		}
		out = append(out, ra)
	}
	return out
}
