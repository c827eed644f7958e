package stages

import (
	"math"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/trace"
)

// ContextReport accounts for the packed context of every query.
type ContextReport struct {
	Traces  int  `json:"traces"` // traces with a context stage
	Counted bool `json:"counted"`
	// NoText counts the contexts that carry no text; Reported those whose
	// trace carries the generator's prompt size, and Agree those where it
	// equals ragstat's count.
	NoText   int `json:"-"`
	Reported int `json:"-"`
	Agree    int `json:"-"`
	// Budgeted counts the contexts whose trace records a token budget.
	Budgeted   int         `json:"budgeted"`
	Budgets    []Budget    `json:"queries,omitempty"`
	OverBudget []string    `json:"over_budget,omitempty"`
	Tokens     Percentiles `json:"tokens"`
	// TruncatedAway lists relevant context items that lost their span and
	// count as grade 0 there.
	TruncatedAway []Lost `json:"truncated_away,omitempty"`
}

// Budget is one query's token accounting: instructions + request + context
// text + answer reserve, against the budget.
type Budget struct {
	Query        string `json:"query"`
	Instructions int    `json:"instructions"`
	Request      int    `json:"request"`
	Context      int    `json:"context"`
	Reserve      int    `json:"answer_reserve"`
	Total        int    `json:"total"`
	Limit        int    `json:"budget"` // 0: no budget recorded
	NoText       bool   `json:"no_context_text,omitempty"`
	// Reported is the prompt size the generator reported, when the trace
	// carries it; it includes what ragstat cannot see (chat templates).
	Reported *int         `json:"reported_tokens,omitempty"`
	Items    []ItemTokens `json:"items,omitempty"`
}

// Prompt is the prompt as ragstat counts it: the budget without the
// answer reserve.
func (b Budget) Prompt() int { return b.Total - b.Reserve }

// Over reports whether the query exceeds its budget.
func (b Budget) Over() bool { return b.Limit > 0 && b.Total > b.Limit }

// ItemTokens is one packed item's size.
type ItemTokens struct {
	Item   string `json:"item"`
	Tokens int    `json:"tokens"`
}

// Percentiles summarises a distribution (nearest-rank percentiles).
type Percentiles struct {
	Name string  `json:"name,omitempty"`
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

func percentiles(name string, xs []float64) Percentiles {
	p := Percentiles{Name: name, N: len(xs)}
	if len(xs) == 0 {
		return p
	}
	s := slices.Sorted(slices.Values(xs))
	at := func(q float64) float64 { return s[max(0, int(math.Ceil(q*float64(len(s))))-1)] }
	p.P50, p.P90, p.P99, p.Max = at(0.5), at(0.9), at(0.99), s[len(s)-1]
	return p
}

// contextOf counts the tokens of a trace's context stage and lists the
// relevant items whose span was truncated away.
func (j *joiner) contextOf(v *view, names []string) (bool, *Budget, []Lost) {
	ci := slices.Index(names, trace.ContextStage)
	if ci < 0 {
		return false, nil, nil
	}
	var lost []Lost
	for _, p := range v.stages[ci] {
		if p.state == spanLost {
			lost = append(lost, Lost{Query: v.t.Query, What: p.id, Status: StatusTruncated})
		}
	}
	if j.opt.Tokenizer == nil {
		return true, nil, lost
	}
	b := j.budget(v.t.Query, &v.t.Stages[ci])
	return true, &b, lost
}

// add counts one trace's context. A summary keeps the budgets of the
// queries over budget or whose reported size differs, and no other.
func (r *ContextReport) add(d *digest, summary bool) {
	if !d.hasContext {
		return
	}
	r.Traces++
	r.TruncatedAway = append(r.TruncatedAway, d.truncated...)
	b := d.budget
	if b == nil {
		return
	}
	r.Counted = true
	if b.NoText {
		r.NoText++
	}
	differs := false
	if b.Reported != nil {
		r.Reported++
		if *b.Reported == b.Prompt() {
			r.Agree++
		} else {
			differs = true
		}
	}
	if !summary || b.Over() || differs {
		r.Budgets = append(r.Budgets, *b)
	}
	if b.Limit > 0 {
		r.Budgeted++
	}
	if b.Over() {
		r.OverBudget = append(r.OverBudget, d.query)
	}
}

// packedCounter is a Tokenizer that counts a packed context and the parts
// it holds together, counting the parts' insides once (tokenize's tiktoken
// encodings).
type packedCounter interface {
	CountPacked(text string, parts []string, counts []int) int
}

// budget counts one context with the generator's tokenizer.
func (j *joiner) budget(query string, s *trace.Stage) Budget {
	tok := j.opt.Tokenizer
	b := Budget{Query: query}
	if s.Instructions != nil {
		b.Instructions = tok.Count(*s.Instructions)
	}
	if s.Request != nil {
		b.Request = tok.Count(*s.Request)
	}
	if s.AnswerReserveTokens != nil {
		b.Reserve = *s.AnswerReserveTokens
	}
	if s.BudgetTokens != nil {
		b.Limit = *s.BudgetTokens
	}
	var texts []string
	for _, it := range s.Items {
		text, _ := j.packedText(it)
		texts = append(texts, text)
	}
	var context string
	if s.Text != nil {
		context = *s.Text
	} else {
		b.NoText = true
		context = strings.Join(texts, "\n")
	}
	counts := make([]int, len(texts))
	if pc, ok := tok.(packedCounter); ok {
		b.Context = pc.CountPacked(context, texts, counts)
	} else {
		for i, text := range texts {
			counts[i] = tok.Count(text)
		}
		b.Context = tok.Count(context)
	}
	for i, it := range s.Items {
		b.Items = append(b.Items, ItemTokens{Item: it.ID, Tokens: counts[i]})
	}
	b.Total = b.Instructions + b.Request + b.Context + b.Reserve
	b.Reported = s.ReportedTokens
	return b
}

// sorted puts the listings in query order.
func (r ContextReport) sorted() ContextReport {
	r.Budgets = byQuery(r.Budgets, func(b Budget) string { return b.Query })
	slices.Sort(r.OverBudget)
	r.TruncatedAway = byQuery(r.TruncatedAway, func(l Lost) string { return l.Query })
	return r
}
