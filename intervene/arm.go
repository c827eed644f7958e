package intervene

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// Arm is one side of the experiment: the prompt sent and how its answer
// scores.
type Arm struct {
	Items     []string `json:"items"`          // the context's items, in order
	Context   string   `json:"context"`        // the context text sent
	Tokens    int      `json:"prompt_tokens"`  // instructions + request + context, by the tokenizer
	Total     int      `json:"total_tokens"`   // Tokens + the answer reserve
	OverBy    int      `json:"over_budget_by"` // tokens over the trace's budget, 0 when within
	Answer    string   `json:"answer"`
	Citations []string `json:"citations,omitempty"`
	Grade
	Error string `json:"error,omitempty"`
	// Cached marks an answer taken from the cache, not sent for.
	Cached bool `json:"cached,omitempty"`
}

// Grade is how an answer scores against the topic.
type Grade struct {
	// Abstained is nil when no abstention pattern was given.
	Abstained *bool `json:"abstained,omitempty"`
	// ExactMatch and F1 are the best over the topic's reference answers,
	// nil when it gives none.
	ExactMatch *float64 `json:"exact_match,omitempty"`
	F1         *float64 `json:"f1,omitempty"`
	// FactsCited is the share of required facts whose support the answer
	// cites, nil when the topic requires none.
	FactsCited *float64 `json:"facts_cited,omitempty"`
	// Supported counts the cited items that are in the answer's own
	// context and judged relevant; NotInContext the cited ids that are not
	// in it.
	Supported    int      `json:"citations_supported"`
	NotInContext []string `json:"cited_not_in_context,omitempty"`
	// Pass: not abstained, matching a reference (exactly, or at PassF1),
	// and citing every required fact.
	Pass bool `json:"pass"`
}

// grade scores an answer. context lists the items the answer saw (nil: not
// known, so citations are not checked against it).
func (opt *Options) grade(topic *topics.Topic, text string, cited []string, abstained bool, context []string) Grade {
	var g Grade
	if opt.Abstain != nil {
		g.Abstained = &abstained
	}
	ag := topics.GradeAnswer(topic, text, cited, abstained)
	if ag.References {
		g.ExactMatch, g.F1 = &ag.EM, &ag.F1
	}
	if ag.Facts {
		g.FactsCited = &ag.FactsCited
	}
	pass, graded := ag.Correct(opt.PassF1)
	pass = pass || !graded && !abstained // nothing to grade against: an answer passes
	if context != nil {
		q := opt.Judgments.Query(topic.ID)
		for _, id := range cited {
			if !slices.Contains(context, id) {
				g.NotInContext = append(g.NotInContext, id)
				continue
			}
			if q != nil {
				if grade, ok := q.Grade(id); ok && grade >= opt.MinGrade {
					g.Supported++
				}
			}
		}
	}
	g.Pass = pass
	return g
}

// prompt frames a context the same way for both arms: the instructions as
// the system message (when the trace has any), then one user message
// holding the context text, a blank line and the request.
func prompt(s Settings, instructions, context, request string) Request {
	var msgs []llm.Message
	if instructions != "" {
		msgs = append(msgs, llm.Message{Role: "system", Content: instructions})
	}
	user := request
	if context != "" {
		user = context + "\n\n" + request
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: user})
	return Request{Model: s.Model, Messages: msgs, Temperature: s.Temperature, Seed: s.Seed, MaxTokens: s.MaxTokens}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// intervene runs both arms for one trace.
func (opt *Options) intervene(ctx context.Context, t *trace.Trace, topic *topics.Topic) (Case, error) {
	c := Case{Query: t.Query, System: t.System}
	settings, err := opt.Settings.over(t.Config)
	if err != nil {
		return c, err
	}
	c.Settings = settings
	cs := t.Stage(trace.ContextStage)
	if cs == nil {
		return c, errors.New("the trace has no context stage")
	}
	layout := layoutOf(cs)
	c.Layout = layout.Source
	c.Verified = verify(texts{corpus: opt.Corpus, trace: t, names: opt.Names}, topic, opt.Judgments.Query(t.Query), opt.MinGrade)

	original := str(cs.Text)
	if cs.Text == nil {
		var items []Evidence
		for _, it := range cs.Items {
			text, _, _ := texts{corpus: opt.Corpus, trace: t}.get(it.ID)
			items = append(items, Evidence{ID: it.ID, Text: text})
		}
		original = layout.Format(items)
	}
	reserve := 0
	if cs.AnswerReserveTokens != nil {
		reserve = *cs.AnswerReserveTokens
	}
	if cs.BudgetTokens != nil {
		c.Budget = *cs.BudgetTokens
	}
	instructions, request := str(cs.Instructions), str(cs.Request)
	if request == "" {
		request = topic.Text
	}
	arms := []struct {
		name  string
		arm   *Arm
		items []string
		text  string
	}{
		{"original", &c.Original, cs.IDs(), original},
		{"verified", &c.Fixed, ids(c.Verified.Items), layout.Format(c.Verified.Items)},
	}
	notRun := false
	for _, a := range arms {
		a.arm.Items, a.arm.Context = a.items, a.text
		a.arm.Tokens = opt.Tokenizer.Count(instructions) + opt.Tokenizer.Count(request) + opt.Tokenizer.Count(a.text)
		a.arm.Total = a.arm.Tokens + reserve
		if c.Budget > 0 && a.arm.Total > c.Budget {
			a.arm.OverBy = a.arm.Total - c.Budget
		}
		resp, err := opt.Generator.Generate(ctx, callID(a.name, t.System, t.Query), prompt(settings, instructions, a.text, request))
		switch {
		case errors.Is(err, llm.ErrBatched):
			notRun = true
			continue
		case err != nil && ctx.Err() != nil:
			return c, err
		case err != nil:
			a.arm.Error = err.Error()
			notRun = true
			continue
		}
		a.arm.Answer, a.arm.Cached = resp.Text, resp.Cached
		a.arm.Citations = opt.cited(resp.Text)
		abstained := opt.Abstain != nil && opt.Abstain.MatchString(resp.Text)
		a.arm.Grade = opt.grade(topic, resp.Text, a.arm.Citations, abstained, a.items)
	}
	switch {
	case notRun:
		c.Verdict = NotRun
	case !c.Verified.Sufficient():
		c.Verdict = EvidenceInsufficient
	case c.Original.Pass && !c.Fixed.Pass:
		c.Verdict, c.Note = NotTheContext, "the regenerated original passes but the verified context fails: the verified set may not answer the question as asked"
	case c.Original.Pass:
		c.Verdict = OriginalPasses
	case c.Fixed.Pass:
		c.Verdict = ContextContributed
	default:
		c.Verdict = NotTheContext
	}
	if c.Fixed.OverBy > 0 {
		c.Note = strings.TrimPrefix(c.Note+"; the verified context is over the trace's budget, run anyway", "; ")
	}
	return c, nil
}

func ids(items []Evidence) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// cited lists the ids an answer cites, each once, in order.
func (opt *Options) cited(text string) []string {
	var out []string
	for _, m := range opt.Citation.FindAllStringSubmatch(text, -1) {
		id := m[0]
		if len(m) > 1 {
			id = m[1]
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
