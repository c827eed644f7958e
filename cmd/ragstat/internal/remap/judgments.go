package remap

import (
	"fmt"
	"slices"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
)

// Review is one line of the review file: evidence that was not carried
// over with certainty, and why.
type Review struct {
	Query   string   `json:"query"`
	Fact    string   `json:"fact,omitempty"` // for a fact's support
	Status  Status   `json:"status"`
	Item    string   `json:"item,omitempty"`    // the new chunk that took no grade (conflicts)
	Old     []Source `json:"old"`               // the old evidence involved
	Granted []string `json:"granted,omitempty"` // new chunks that did take it
	Partial []string `json:"partial,omitempty"` // new chunks that hold only part of it
	Reason  string   `json:"reason"`
}

// Source is one piece of old evidence: a judged item or a supporting
// piece, with the span that was followed.
type Source struct {
	Item  string `json:"item"`
	Grade *int   `json:"grade,omitempty"`
	Span  string `json:"span,omitempty"`
	Line  int    `json:"line,omitempty"`
}

// Counts says how the evidence of one query (or topic) fared. Each
// judgment (or supporting piece) counts once, under its worst status.
type Counts struct {
	ID                                              string
	Total, Mapped, Unmapped, Ambiguous, Conflicting int
}

func (c *Counts) add(s Status) {
	c.Total++
	switch s {
	case Mapped:
		c.Mapped++
	case Unmapped:
		c.Unmapped++
	case Ambiguous:
		c.Ambiguous++
	case Conflicting:
		c.Conflicting++
	}
}

// Judgments is the outcome of remapping a judgments set.
type Judgments struct {
	Judgments []judgments.Judgment // by query, then in new chunk file order
	Review    []Review
	Counts    []Counts // per query, in the order queries were read
}

// grant is one old judgment's grade offered to a new chunk through a span.
type grant struct {
	from int // index of the old judgment in its query
	span string
}

// Judgments remaps every judgment of s. A judged item that is not an old
// chunk is an error.
func (m *Mapper) Judgments(s *judgments.Set) (*Judgments, error) {
	var errs diag.List
	for _, id := range s.IDs() {
		for _, j := range s.Judgments(id) {
			if m.old.Get(j.Item) == nil && errs.Add(&diag.Error{File: s.File, Line: j.Line, Query: id, Item: j.Item,
				Msg: fmt.Sprintf("judged item is not in the old chunk file %s", m.old.File), Hint: "remap needs the position of every judged item"}) {
				break
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	out := &Judgments{}
	for _, id := range s.IDs() {
		out.query(m, s.Judgments(id))
	}
	return out, nil
}

// query remaps the judgments of one query.
func (out *Judgments) query(m *Mapper, js []judgments.Judgment) {
	status := make([]Status, len(js))
	grants := map[*chunks.Chunk][]grant{}
	for i, j := range js {
		for _, span := range spansOf(j.Spans) {
			p := m.Place(j.Item, span)
			status[i] = max(status[i], p.Status)
			for _, c := range p.New {
				grants[c] = append(grants[c], grant{i, span})
			}
			if p.Status != Mapped {
				out.Review = append(out.Review, Review{Query: j.Query, Status: p.Status, Old: []Source{source(j, span)},
					Granted: ids(p.New), Partial: ids(p.Partial), Reason: p.Reason})
			}
		}
	}
	targets := make([]*chunks.Chunk, 0, len(grants))
	for c := range grants {
		targets = append(targets, c)
	}
	slices.SortFunc(targets, func(a, b *chunks.Chunk) int { return a.Line - b.Line })
	for _, c := range targets {
		out.grant(js, c, grants[c], status)
	}
	counts := Counts{ID: js[0].Query}
	for _, s := range status {
		counts.add(s)
	}
	out.Counts = append(out.Counts, counts)
}

// grant gives new chunk c the grade its grants agree on, or sends them all
// to review when they disagree.
func (out *Judgments) grant(js []judgments.Judgment, c *chunks.Chunk, gs []grant, status []Status) {
	first := js[gs[0].from]
	nj := judgments.Judgment{Query: first.Query, Item: c.ID, Grade: first.Grade}
	agree := true
	for _, g := range gs {
		agree = agree && js[g.from].Grade == nj.Grade
		if g.span != "" && !slices.Contains(nj.Spans, g.span) {
			nj.Spans = append(nj.Spans, g.span)
		}
	}
	if agree {
		out.Judgments = append(out.Judgments, nj)
		return
	}
	r := Review{Query: nj.Query, Status: Conflicting, Item: c.ID,
		Reason: fmt.Sprintf("new chunk %q would take different grades from several old judgments; it takes none", c.ID)}
	for _, g := range gs {
		status[g.from] = Conflicting
		r.Old = append(r.Old, source(js[g.from], g.span))
	}
	out.Review = append(out.Review, r)
}

// spansOf is the evidence to follow: every span, or the whole chunk ("").
func spansOf(spans []string) []string {
	if len(spans) == 0 {
		return []string{""}
	}
	return spans
}

func source(j judgments.Judgment, span string) Source {
	g := j.Grade
	return Source{Item: j.Item, Grade: &g, Span: span, Line: j.Line}
}
