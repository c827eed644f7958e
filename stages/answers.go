package stages

import (
	"maps"
	"slices"

	"github.com/ragstat/ragstat/topics"
)

// AnswerReport tells how the answers behaved.
type AnswerReport struct {
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	// NoAnswer lists traces with no answer recorded (neither an answer nor
	// an abstention): they count in no rate.
	NoAnswer []string `json:"no_answer_recorded,omitempty"`
	// NoAbstention lists traces with an answer but no record of whether it
	// abstained: they count in neither abstention rate.
	NoAbstention []string `json:"abstention_not_recorded,omitempty"`
	// Abstentions on unanswerable queries, and their rate among those with
	// an answer recorded (nil, JSON null, over none). An empty retrieval
	// is not an abstention.
	Abstained      int      `json:"abstained_unanswerable"`
	AbstentionRate *float64 `json:"abstention_rate"`
	// FalseAbstentions are abstentions on answerable queries, and their
	// rate among those with an abstention recorded (nil over none).
	FalseAbstentions    int      `json:"false_abstentions"`
	FalseAbstentionRate *float64 `json:"false_abstention_rate"`
	// Citations: cited items, those not in the final context (citing what
	// was not shown), and those that are valid, judged relevant evidence
	// that kept its span.
	// CitationSupport is Supported / Cited, nil with no citation.
	Cited           int        `json:"cited"`
	NotShown        []Citation `json:"cited_not_in_context,omitempty"`
	Supported       int        `json:"cited_supported"`
	CitationSupport *float64   `json:"citation_support"`
	// FactsCited is the mean share of required facts that the citations
	// support, over answered queries with facts; nil when no answered
	// query has facts.
	FactsCited *float64 `json:"facts_cited"`
	// Nuggets holds nuggetizer's four scores of the answers, with
	// Input.Nuggets; nil without them or when no answer has one.
	Nuggets *NuggetReport `json:"nuggets,omitempty"`
	// Correctness against the topics' reference answers (SQuAD-style
	// normalisation): exact match and token F1, means over answered
	// queries that have references.
	Graded     int     `json:"graded"`
	ExactMatch float64 `json:"exact_match"`
	F1         float64 `json:"f1"`
}

// Citation is one cited item.
type Citation struct {
	Query string `json:"query"`
	Item  string `json:"item"`
}

// answerTally adds up answers trace by trace.
type answerTally struct {
	r                    AnswerReport
	answered, unanswered int
	factQueries          int
	factsCited, f1       exactSum // summed exactly: the order traces arrive in does not matter
	nuggets              nuggetTally
}

// merge adds another tally.
func (a *answerTally) merge(o answerTally) {
	a.r.Answerable += o.r.Answerable
	a.r.Unanswerable += o.r.Unanswerable
	a.r.NoAnswer = append(a.r.NoAnswer, o.r.NoAnswer...)
	a.r.NoAbstention = append(a.r.NoAbstention, o.r.NoAbstention...)
	a.r.Abstained += o.r.Abstained
	a.r.FalseAbstentions += o.r.FalseAbstentions
	a.r.Cited += o.r.Cited
	a.r.NotShown = append(a.r.NotShown, o.r.NotShown...)
	a.r.Supported += o.r.Supported
	a.r.Graded += o.r.Graded
	a.r.ExactMatch += o.r.ExactMatch
	a.f1.merge(o.f1)
	a.answered += o.answered
	a.unanswered += o.unanswered
	a.factQueries += o.factQueries
	a.factsCited.merge(o.factsCited)
	a.nuggets.merge(o.nuggets)
}

// report turns the sums into rates and means.
func (a *answerTally) report() AnswerReport {
	r := a.r
	slices.Sort(r.NoAnswer)
	slices.Sort(r.NoAbstention)
	r.NotShown = byQuery(r.NotShown, func(c Citation) string { return c.Query })
	r.AbstentionRate = ratio(r.Abstained, a.unanswered)
	r.FalseAbstentionRate = ratio(r.FalseAbstentions, a.answered)
	r.CitationSupport = ratio(r.Supported, r.Cited)
	if a.factQueries > 0 {
		v := a.factsCited.value() / float64(a.factQueries)
		r.FactsCited = &v
	}
	r.Nuggets = a.nuggets.report()
	if r.Graded > 0 {
		r.ExactMatch /= float64(r.Graded)
		r.F1 = a.f1.value() / float64(r.Graded)
	}
	return r
}

// ratio is a / b, nil over nothing.
func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	v := float64(a) / float64(b)
	return &v
}

func (a *answerTally) one(v *view, ci int, minGrade int32) {
	if v.topic.Answerable {
		a.r.Answerable++
	} else {
		a.r.Unanswerable++
	}
	ans := v.t.Answer
	if ans == nil {
		a.r.NoAnswer = append(a.r.NoAnswer, v.t.Query)
		return
	}
	abstained := ans.Abstained != nil && *ans.Abstained
	if ans.Abstained == nil {
		a.r.NoAbstention = append(a.r.NoAbstention, v.t.Query)
	}
	if !v.topic.Answerable {
		if ans.Abstained != nil {
			a.unanswered++
		}
		if abstained {
			a.r.Abstained++
		}
		return
	}
	if ans.Abstained != nil {
		a.answered++
	}
	if abstained {
		a.r.FalseAbstentions++
		return
	}
	g := topics.GradeAnswer(v.topic, ans.Text, ans.Citations, false)
	a.citations(v, ci, ans.Citations, minGrade, g)
	if g.References {
		a.r.Graded++
		a.r.ExactMatch += g.EM
		a.f1.add(g.F1)
	}
}

// citations checks each cited item against the final context, and counts
// the share of required facts the answer's grade g says they support.
func (a *answerTally) citations(v *view, ci int, cited []string, minGrade int32, g topics.AnswerGrade) {
	for _, id := range cited {
		a.r.Cited++
		var p *placed
		if ci >= 0 {
			p = v.find(ci, id)
		}
		switch {
		case p == nil:
			a.r.NotShown = append(a.r.NotShown, Citation{Query: v.t.Query, Item: id})
		case p.state == evidence && p.grade >= minGrade:
			a.r.Supported++
		}
	}
	if !g.Facts {
		return
	}
	a.factQueries++
	a.factsCited.add(g.FactsCited)
}

// latency summarises every stage latency recorded, stages in pipeline
// order, then the rest (generation) by name.
func latency(values map[string][]float64, names []string) []Percentiles {
	var out []Percentiles
	for _, k := range latencyKeys(values, names) {
		out = append(out, percentiles(k, values[k]))
	}
	return out
}

// latencyFiles is latency over values kept in files.
func latencyFiles(values map[string]*valueFile, names []string) ([]Percentiles, error) {
	var out []Percentiles
	for _, k := range latencyKeys(values, names) {
		p, err := values[k].percentiles(k)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// latencyKeys orders the latencies' names: the stages' in pipeline order,
// then the others by name.
func latencyKeys[V any](values map[string]V, names []string) []string {
	keys := slices.Sorted(maps.Keys(values))
	pos := func(k string) int {
		if i := slices.Index(names, k); i >= 0 {
			return i
		}
		return len(names)
	}
	slices.SortStableFunc(keys, func(a, b string) int { return pos(a) - pos(b) })
	return keys
}
