package stages

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// state is what one stage delivered of one item, as evidence.
type state uint8

const (
	absent     state = iota
	evidence         // present, valid, span kept
	outOfScope       // present, but outside the query's permission scopes
	stale            // present, but not in effect at the query's as_of date
	spanLost         // in the context, but the packed text lost the span
)

// invalid reports whether s is present but not acceptable evidence.
func (s state) invalid() bool { return s == outOfScope || s == stale }

// placed is one item of one stage after validity and span checks.
type placed struct {
	id    string
	grade int32 // metric.Unjudged when there is no judgment
	state state
	meta  *corpus.Meta // never nil: noMeta when nothing is known (a trace's items seldom carry any)
	out   bool         // out of scope
	stale bool         // not in effect at the query's as_of
	text  string       // context stage: the packed text (or the corpus text)
	has   bool         // text is known
}

// noMeta is the metadata of every placed item with none, shared (read
// only): a placed item is a third the size without its own.
var noMeta corpus.Meta

// view is one trace joined with its topic, judgments and corpus.
type view struct {
	t      *trace.Trace
	topic  *topics.Topic
	q      *judgments.Query // nil when the query has no judgments
	pos    int              // with Input.Spilled: the query's position among the judged answerable queries, or -1
	stages [][]placed       // in the trace's stage order
	// reported holds items already named in a missing-metadata error,
	// unjudged those named as returned without a judgment.
	reported, unjudged map[string]bool
}

// find returns item at stage i, or nil.
func (v *view) find(i int, item string) *placed {
	for k := range v.stages[i] {
		if v.stages[i][k].id == item {
			return &v.stages[i][k]
		}
	}
	return nil
}

// lookup returns the state of item at stage i.
func (v *view) lookup(i int, item string) state {
	if p := v.find(i, item); p != nil {
		return p.state
	}
	return absent
}

type joiner struct {
	in   Input
	opt  Options
	errs *diag.List
	// holes counts the returned items without a judgment, once a trace.
	holes int
}

func (j *joiner) bad(t *trace.Trace, item, msg, hint string) {
	j.errs.Add(&diag.Error{File: t.File, Line: t.Line, Query: t.Query, Item: item, Msg: msg, Hint: hint})
}

// hole records a returned item without a judgment, once a trace: at the
// first stage that returned it.
func (j *joiner) hole(v *view, item, stage string) {
	if v.unjudged[item] {
		return
	}
	if v.unjudged == nil {
		v.unjudged = map[string]bool{}
	}
	v.unjudged[item] = true
	j.holes++
	j.bad(v.t, item, fmt.Sprintf("stage %q returned it but it has no judgment", stage), "judge it, or choose {unjudged} nonrelevant, skip or bounds")
}

// join builds the view of t; names are its stages' names, in order.
func (j *joiner) join(t *trace.Trace, names []string) *view {
	topic, q, pos, err := j.lookup(t.Query)
	if err != nil {
		j.errs.Add(err)
		return nil
	}
	if topic == nil {
		j.bad(t, "", fmt.Sprintf("query is not in the topics file %s", j.in.topicsFile()), "every traced query needs a topic")
		return nil
	}
	if len(t.Scopes) > 0 && !sameSet(t.Scopes, topic.Scopes) {
		j.bad(t, "", fmt.Sprintf("trace scopes %v differ from the topic's %v", t.Scopes, topic.Scopes), "the run asked a different question than the one judged")
	}
	if !t.AsOf.IsZero() && !t.AsOf.Equal(topic.AsOf.Time) {
		j.bad(t, "", fmt.Sprintf("trace as_of %s differs from the topic's %q", t.AsOf, topic.AsOf.String()), "the run asked a different question than the one judged")
	}
	v := &view{t: t, topic: topic, q: q, pos: pos, stages: make([][]placed, len(names))}
	for i := range names {
		v.stages[i] = j.place(v, &t.Stages[i])
	}
	return v
}

// lookup returns the topic of query (nil when it has none), its judgments
// (nil when it has none) and, from a spill, its position among the judged
// answerable queries (-1: none, or not spilled).
func (j *joiner) lookup(query string) (*topics.Topic, *judgments.Query, int, error) {
	if s := j.in.Spilled; s != nil {
		sq, err := s.get(query)
		if err != nil || sq == nil {
			return nil, nil, -1, err
		}
		return sq.topic, sq.q, sq.pos, nil
	}
	return j.in.Topics.Get(query), j.in.Judgments.Query(query), -1, nil
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// place checks every item of stage s (up to its cutoff).
func (j *joiner) place(v *view, s *trace.Stage) []placed {
	items := s.Items
	if k := j.opt.Cutoffs[s.Name]; k > 0 && k < len(items) {
		items = items[:k]
	}
	out := make([]placed, 0, len(items))
	for _, it := range items {
		p := placed{id: it.ID, grade: metric.Unjudged, state: evidence, meta: &noMeta}
		if m := j.meta(v, it); m != (corpus.Meta{}) {
			p.meta = new(corpus.Meta) // only here: &m would put every m on the heap
			*p.meta = m
		}
		p.out, p.stale = p.meta.Validity(v.topic.Scopes, v.topic.AsOf.Time)
		switch {
		case p.out:
			p.state = outOfScope
		case p.stale:
			p.state = stale
		}
		if v.q != nil {
			if g, ok := v.q.Grade(it.ID); ok {
				p.grade = int32(g)
			}
		}
		if p.grade == metric.Unjudged && !p.state.invalid() && v.topic.Answerable && j.opt.Policy.Unjudged == "error" {
			j.hole(v, it.ID, s.Name)
		}
		if s.Name == trace.ContextStage {
			p.text, p.has = j.packedText(it)
			if p.state == evidence && p.grade > 0 {
				j.reassess(v, it, &p)
			}
		}
		if p.state != evidence && p.grade != metric.Unjudged || p.state.invalid() {
			p.grade = 0 // not acceptable evidence, in every metric
		}
		out = append(out, p)
	}
	return out
}

// meta merges what the trace says of an item with what the corpus says,
// and insists on metadata when scopes or dates are in play.
func (j *joiner) meta(v *view, it trace.Item) corpus.Meta {
	m := it.Meta
	c := j.in.Corpus.Get(it.ID)
	if c != nil {
		m = m.Merge(c.Meta)
	}
	inPlay := len(v.topic.Scopes) > 0 || !v.topic.AsOf.IsZero()
	if inPlay && c == nil && !it.Meta.Known() && !j.opt.AllowNoMetadata && !v.reported[it.ID] {
		if v.reported == nil {
			v.reported = map[string]bool{}
		}
		v.reported[it.ID] = true // once a trace, not once a stage
		j.bad(v.t, it.ID, "no metadata (scope, dates) for this item in the trace or the corpus, and the query has scopes or an as_of date",
			"add it to {corpus}, record it in the trace, or accept it with {unknown_metadata} allow")
	}
	return m
}

// invalidJudgment is a judged item that is not acceptable evidence for
// the query: out of its scopes, or not in effect at its as_of date.
type invalidJudgment struct {
	item  string
	grade int32
	out   bool // out of scope (else stale)
}

// invalidJudgments lists the query's judged items that are not acceptable
// evidence for this request, whether or not any stage returned them, from
// what the trace and the corpus say of each. They leave every stage's
// ideal ranking and denominators: a pipeline that rightly refuses a
// forbidden passage is not punished for it.
func (j *joiner) invalidJudgments(v *view) []invalidJudgment {
	if len(v.topic.Scopes) == 0 && v.topic.AsOf.IsZero() {
		return nil
	}
	seen := map[string]corpus.Meta{}
	for _, st := range v.stages {
		for _, p := range st {
			seen[p.id] = *p.meta
		}
	}
	var out []invalidJudgment
	for k := range v.q.Len() {
		item := v.q.Key(k)
		m, ok := seen[item]
		if !ok {
			if c := j.in.Corpus.Get(item); c != nil {
				m = c.Meta
			}
		}
		if outOfScope, stale := m.Validity(v.topic.Scopes, v.topic.AsOf.Time); outOfScope || stale {
			out = append(out, invalidJudgment{item: item, grade: int32(v.q.GradeAt(k)), out: outOfScope})
		}
	}
	return out
}

func gradesOf(inv []invalidJudgment) []int32 {
	out := make([]int32, len(inv))
	for i, x := range inv {
		out[i] = x.grade
	}
	return out
}

// reassess decides whether a relevant context item kept its evidence: its
// packed text must still hold one of its judgment's spans; without spans,
// a packed text shorter than the corpus text is a truncation the
// truncated policy decides.
func (j *joiner) reassess(v *view, it trace.Item, p *placed) {
	packed, ok := p.text, p.has
	if !ok {
		return
	}
	if spans := v.q.Spans(it.ID); len(spans) > 0 {
		if !containsAny(packed, spans) {
			p.state = spanLost
		}
		return
	}
	full := j.in.Corpus.Get(it.ID)
	if full == nil || !full.HasText || len(normalize(packed)) >= len(normalize(full.Text)) {
		return
	}
	switch j.opt.Truncated {
	case TruncatedDrop:
		p.state = spanLost
	case TruncatedInherit:
	default:
		j.bad(v.t, it.ID, "packed text is shorter than the corpus text and the judgment names no span: its grade cannot simply be inherited",
			"add spans to the judgment, or choose {truncated} inherit or drop")
	}
}

// packedText is the item's text as packed, or its corpus text.
func (j *joiner) packedText(it trace.Item) (string, bool) {
	if it.Text != nil {
		return *it.Text, true
	}
	if c := j.in.Corpus.Get(it.ID); c != nil && c.HasText {
		return c.Text, true
	}
	return "", false
}

// normalize collapses every run of whitespace to one space.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

func containsAny(text string, spans []string) bool {
	t := normalize(text)
	for _, s := range spans {
		if strings.Contains(t, normalize(s)) {
			return true
		}
	}
	return false
}
