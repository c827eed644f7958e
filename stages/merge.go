package stages

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/eval"
)

// partial is what one shard's system carries beyond its reports so that
// Merge gives, bit for bit, what one run over every query gives: the
// earliest trace, the sums that the reports show only divided, the exact
// sums' terms, the latencies and where each configuration was first seen.
type partial struct {
	First       tracePlace           `json:"first_trace"`
	Traces      int                  `json:"traces"`
	Lengths     []int                `json:"list_lengths"` // per stage, summed over the traces
	Answered    int                  `json:"answered"`     // answerable, abstention recorded
	Unanswered  int                  `json:"unanswered"`   // unanswerable, abstention recorded
	FactQueries int                  `json:"fact_queries"` // answered with facts
	ExactMatch  float64              `json:"exact_match_sum"`
	FactsCited  []float64            `json:"facts_cited_terms"` // exact sums' terms
	F1          []float64            `json:"f1_terms"`
	Latency     map[string][]float64 `json:"latency_ms,omitempty"`
	Configs     []configPlace        `json:"config_places,omitempty"`
	// Returned is, per stage, each row's list length, in the rows' order.
	Returned [][]int `json:"returned"`
	// Truncated and Metadata are the policies the numbers depend on that
	// the manifest does not record: shards must share them.
	Truncated Truncated `json:"truncated"`
	Metadata  string    `json:"unknown_metadata"`
	// Turns are the sums behind System.Turns.
	Turns []turnTerms `json:"turns,omitempty"`
	// Nuggets are the sums behind AnswerReport.Nuggets.
	Nuggets *nuggetTerms `json:"nuggets,omitempty"`
}

// tracePlace is where a trace was read.
type tracePlace struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Query string `json:"query"`
}

// configPlace is a configuration and where it was first seen.
type configPlace struct {
	Config string `json:"config"`
	File   string `json:"file"`
	Line   int    `json:"line"`
}

func (t *tally) partial(evals []*eval.Result, opt Options) *partial {
	p := &partial{First: tracePlace{t.first.file, t.first.line, t.first.query}, Traces: t.n, Lengths: t.total,
		Answered: t.answers.answered, Unanswered: t.answers.unanswered, FactQueries: t.answers.factQueries,
		ExactMatch: t.answers.r.ExactMatch, FactsCited: t.answers.factsCited.partials, F1: t.answers.f1.partials, Latency: t.lat,
		Truncated: opt.Truncated, Metadata: "error", Turns: t.turnTerms(), Nuggets: t.answers.nuggets.terms()}
	if opt.AllowNoMetadata {
		p.Metadata = "allow"
	}
	for _, res := range evals {
		n := make([]int, len(res.Rows))
		for k, row := range res.Rows {
			n[k] = row.Returned
		}
		p.Returned = append(p.Returned, n)
	}
	for _, c := range slices.Sorted(maps.Keys(t.configs)) {
		p.Configs = append(p.Configs, configPlace{c, t.configs[c].file, t.configs[c].line})
	}
	return p
}

// tallyOf rebuilds the tally of a shard's system from its reports and
// Partial.
func tallyOf(sys *System) (*tally, error) {
	p := sys.Partial
	if p == nil || len(p.Lengths) != len(sys.Stages) {
		return nil, fmt.Errorf("system %q is not a shard's partial result", sys.Name)
	}
	t := &tally{system: sys.Name, n: p.Traces, total: p.Lengths, loss: sys.Loss, factLoss: sys.FactLoss,
		facts: sys.Facts, factLines: len(sys.Facts), context: sys.Context, validity: sys.Validity, lat: p.Latency,
		search: sys.Search}
	if t.lat == nil {
		t.lat = map[string][]float64{}
	}
	var err error
	if t.turns, err = turnsOf(p.Turns); err != nil {
		return nil, fmt.Errorf("system %q: %w", sys.Name, err)
	}
	if len(p.Returned) != len(sys.Stages) {
		return nil, fmt.Errorf("system %q: the partial result's list lengths do not match its stages", sys.Name)
	}
	for i, st := range sys.Stages {
		t.first.names = append(t.first.names, st.Name)
		t.longest = append(t.longest, st.MaxLength)
		if len(p.Returned[i]) != len(st.Eval.Rows) {
			return nil, fmt.Errorf("system %q, stage %q: the partial result's list lengths do not match its rows", sys.Name, st.Name)
		}
		for k, n := range p.Returned[i] {
			st.Eval.Rows[k].Returned = n
		}
	}
	t.first.place, t.first.query = place{p.First.File, p.First.Line}, p.First.Query
	t.covered = make([]exactSum, len(sys.Stages))
	for _, qf := range sys.Facts {
		for i, n := range qf.Supported {
			t.covered[i].add(float64(n) / float64(qf.Facts))
		}
	}
	c := &t.context
	c.NoText, c.Reported, c.Agree = 0, 0, 0
	for _, b := range c.Budgets {
		t.budgets = append(t.budgets, float64(b.Total))
		if b.NoText {
			c.NoText++
		}
		if b.Reported != nil {
			c.Reported++
			if *b.Reported == b.Prompt() {
				c.Agree++
			}
		}
	}
	t.answers = answerTally{r: sys.Answers, answered: p.Answered, unanswered: p.Unanswered, factQueries: p.FactQueries,
		factsCited: exactSum{p.FactsCited}, f1: exactSum{p.F1}, nuggets: p.Nuggets.tally()}
	t.answers.r.ExactMatch = p.ExactMatch
	for _, cp := range p.Configs {
		t.config(cp.Config, place{cp.File, cp.Line})
	}
	return t, nil
}

// merge adds another shard's tally of the same system.
func (t *tally) merge(o *tally) {
	if o.first.before(t.first.place) {
		t.first = o.first
	}
	t.n += o.n
	for i := range t.total {
		t.total[i] += o.total[i]
		t.longest[i] = max(t.longest[i], o.longest[i])
		t.covered[i].merge(o.covered[i])
	}
	t.loss.merge(o.loss)
	t.factLoss.merge(o.factLoss)
	t.facts = append(t.facts, o.facts...)
	t.search = append(t.search, o.search...)
	t.mergeTurns(o.turns)
	t.factLines += o.factLines
	c, oc := &t.context, o.context
	c.Traces += oc.Traces
	c.Counted = c.Counted || oc.Counted
	c.NoText += oc.NoText
	c.Budgeted += oc.Budgeted
	c.Reported += oc.Reported
	c.Agree += oc.Agree
	c.Budgets = append(c.Budgets, oc.Budgets...)
	c.OverBudget = append(c.OverBudget, oc.OverBudget...)
	c.TruncatedAway = append(c.TruncatedAway, oc.TruncatedAway...)
	t.budgets = append(t.budgets, o.budgets...)
	t.validity.merge(o.validity)
	t.answers.merge(o.answers)
	for k, ms := range o.lat {
		t.lat[k] = append(t.lat[k], ms...)
	}
	for c, at := range o.configs {
		t.config(c, at)
	}
}

// merge adds another waterfall's counts and items.
func (w *Waterfall) merge(o Waterfall) {
	w.Total += o.Total
	for _, s := range o.Steps {
		if i := slices.IndexFunc(w.Steps, func(x Step) bool { return x.Status == s.Status }); i >= 0 {
			w.Steps[i].Count += s.Count
		} else {
			w.Steps = append(w.Steps, s)
		}
	}
	w.Lost = append(w.Lost, o.Lost...)
}

// Merge combines the results of one evaluation run on every shard of a
// split by query (Options.Shard), each once, into exactly the result one
// run over every query gives: each stage's rows are merged in the
// judgments' order and its means recomputed from them (eval.Merge; position
// gives a judged query's place), the listings are put in query order, and
// the counts, exact sums and percentiles are taken over every shard's
// traces. A system's stages must agree across shards.
func Merge(parts []*Result, position func(query string) (int, bool)) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	tallies := map[string]*tally{}
	evals := map[string][][]*eval.Result{}
	cutoffs := map[string]int{}
	for _, part := range parts {
		for _, sys := range part.Systems {
			t, err := tallyOf(sys)
			if err != nil {
				return nil, err
			}
			for _, st := range sys.Stages {
				cutoffs[st.Name] = st.K
			}
			have := tallies[sys.Name]
			if have == nil {
				tallies[sys.Name] = t
				evals[sys.Name] = make([][]*eval.Result, len(sys.Stages))
			} else if !slices.Equal(have.first.names, t.first.names) {
				return nil, fmt.Errorf("system %q: stages [%s] at %s:%d differ from [%s] at %s:%d",
					sys.Name, strings.Join(t.first.names, ", "), t.first.file, t.first.line,
					strings.Join(have.first.names, ", "), have.first.file, have.first.line)
			} else {
				have.merge(t)
			}
			for i, st := range sys.Stages {
				evals[sys.Name][i] = append(evals[sys.Name][i], st.Eval)
			}
		}
	}
	out := &Result{Tokenizer: parts[0].Tokenizer, Options: Options{Cutoffs: cutoffs}}
	for _, t := range ordered(tallies) {
		merged := make([]*eval.Result, len(t.first.names))
		for i, ps := range evals[t.system] {
			for _, p := range ps {
				p.File = t.first.file // the file of the system's first trace over every shard
			}
			res, err := eval.Merge(ps, position)
			if err != nil {
				return nil, fmt.Errorf("system %q, stage %q: %w", t.system, t.first.names[i], err)
			}
			merged[i] = res
		}
		sys, err := t.report(merged, out.Options)
		if err != nil {
			return nil, err
		}
		out.Systems = append(out.Systems, sys)
	}
	return out, nil
}

// Summarize drops what a result evaluated under Options.Summary does not
// hold: the fact coverage, lost evidence and search step listings past
// their first 20 in query order, delivered evidence, and the budgets
// that fit and agree with the reported size. A merged result summarised
// renders as one summary run over every trace does.
func (s *System) Summarize() {
	if s.Summary {
		return
	}
	s.Summary, s.FactLines = true, len(s.Facts)
	s.Facts = first(s.Facts, func(f QueryFacts) string { return f.Query })
	s.Search = first(s.Search, func(x SearchStep) string { return x.Query })
	for _, w := range []*Waterfall{&s.Loss, &s.FactLoss} {
		w.Lost = first(slices.DeleteFunc(w.Lost, func(l Lost) bool { return l.Status == StatusDelivered }),
			func(l Lost) string { return l.Query })
	}
	s.Context.Budgets = slices.DeleteFunc(s.Context.Budgets, func(b Budget) bool {
		return !b.Over() && (b.Reported == nil || *b.Reported == b.Prompt())
	})
}

// first keeps the first listed of xs in query order, stable within a query.
func first[T any](xs []T, query func(T) string) []T {
	slices.SortStableFunc(xs, func(a, b T) int { return strings.Compare(query(a), query(b)) })
	return xs[:min(len(xs), listed)]
}
