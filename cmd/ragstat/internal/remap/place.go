// Package remap carries relevance judgments and facts' supporting items
// from one chunking of a corpus to another. Evidence with spans follows the
// spans: a new chunk that holds a span whole takes the judgment's grade. A
// judgment without spans follows its chunk's text by overlap. Whatever
// cannot be carried with certainty (a span cut across new chunks, a partial
// overlap, a new chunk granted different grades, a span missing or repeated
// in a new revision) is never granted silently: it goes to a review line.
// A Request is the whole of `ragstat remap`: files in, the remapped files
// and the review lines out.
package remap

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/internal/diag"
)

// Status is what happened to one piece of evidence.
type Status int

// The statuses, from best to worst; a judgment takes the worst status of
// its spans.
const (
	Mapped      Status = iota // every span (or the chunk) landed whole in a new chunk
	Unmapped                  // something was found in no new chunk
	Ambiguous                 // something was cut across new chunks, or found more than once
	Conflicting               // a new chunk it reached was granted different grades
)

var statusNames = [...]string{"mapped", "unmapped", "ambiguous", "conflicting"}

// String is the status's name.
func (s Status) String() string { return statusNames[s] }

// MarshalText writes the name, for the review file.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Mapper places evidence of old chunks among new chunks.
type Mapper struct {
	old, new   *chunks.Set
	docs       *chunks.Documents
	minOverlap float64
	revisions  map[string][]string     // doc -> revisions among the new chunks, in file order
	byRev      map[rev][]*chunks.Chunk // new chunks of one revision, in file order
}

type rev struct{ doc, revision string }

// New checks both chunk files against the documents and indexes the new
// chunks. minOverlap is the share of an old chunk's text, in (0, 1], that a
// new chunk must cover to take a judgment without spans.
func New(old, new *chunks.Set, docs *chunks.Documents, minOverlap float64) (*Mapper, error) {
	if !(minOverlap > 0 && minOverlap <= 1) {
		return nil, fmt.Errorf("min-overlap %g must be in (0, 1]", minOverlap)
	}
	var errs diag.List
	errs.Add(chunks.Check(old, docs))
	errs.Add(chunks.Check(new, docs))
	if err := errs.Err(); err != nil {
		return nil, err
	}
	m := &Mapper{old: old, new: new, docs: docs, minOverlap: minOverlap,
		revisions: map[string][]string{}, byRev: map[rev][]*chunks.Chunk{}}
	for _, c := range new.Chunks {
		k := rev{c.Doc, c.Revision}
		if m.byRev[k] == nil {
			m.revisions[c.Doc] = append(m.revisions[c.Doc], c.Revision)
		}
		m.byRev[k] = append(m.byRev[k], c)
	}
	return m, nil
}

// Placement is where one piece of evidence landed.
type Placement struct {
	Status  Status
	New     []*chunks.Chunk // new chunks that take it
	Partial []*chunks.Chunk // new chunks that hold only part of it
	Reason  string          // why it needs review; empty when mapped
}

// evidence is text at known code points of an old chunk's revision.
type evidence struct {
	doc, revision string
	text          string
	at            []int // every occurrence in the old revision
	n             int   // length in code points
	whole         bool  // the whole chunk (placed by overlap), not a span
}

// Place finds where span of the old chunk item landed; an empty span stands
// for the whole chunk, placed by overlap. item must be an old chunk.
func (m *Mapper) Place(item, span string) Placement {
	c := m.old.Get(item)
	ev := evidence{doc: c.Doc, revision: c.Revision, text: span, n: utf8.RuneCountInString(span), whole: span == ""}
	if ev.whole {
		ev.text, ev.at, ev.n = m.docs.Get(c.Doc, c.Revision).Slice(c.Start, c.End), []int{c.Start}, c.Len()
	} else if ev.at = m.docs.Get(c.Doc, c.Revision).Find(span, c.Start, c.End); len(ev.at) == 0 {
		return Placement{Status: Unmapped, Reason: fmt.Sprintf("the span is not in the text of old chunk %q", item)}
	}
	revs := m.revisions[c.Doc]
	if len(revs) == 0 {
		return Placement{Status: Unmapped, Reason: fmt.Sprintf("document %q has no new chunks", c.Doc)}
	}
	var p Placement
	var why []string
	repeated := false
	for _, r := range revs {
		at, problem := m.locate(ev, r)
		if problem == "" {
			problem = m.fit(&p, ev, at, r)
		}
		repeated = repeated || len(at) > 1 && r != ev.revision
		if problem != "" {
			why = append(why, problem)
		}
	}
	p.Reason = strings.Join(why, "; ")
	switch {
	case len(why) == 0:
		p.Status = Mapped
	case len(p.New)+len(p.Partial) > 0 || repeated:
		p.Status = Ambiguous
	default:
		p.Status = Unmapped
	}
	return p
}

// locate returns where the evidence sits in revision r of its document: the
// old offsets in the same revision, else the one place its text occurs
// verbatim.
func (m *Mapper) locate(ev evidence, r string) (at []int, problem string) {
	if r == ev.revision {
		return ev.at, ""
	}
	d := m.docs.Get(ev.doc, r)
	at = d.Find(ev.text, 0, d.Len())
	switch what := ev.what(); {
	case len(at) == 0:
		return nil, fmt.Sprintf("%s is not in revision %q", what, r)
	case len(at) > 1:
		return at, fmt.Sprintf("%s occurs %d times in revision %q", what, len(at), r)
	}
	return at, ""
}

// what names the evidence in messages.
func (ev evidence) what() string {
	if ev.whole {
		return "the old chunk's text"
	}
	return "the span"
}

// fit adds to p the new chunks of revision r that take the evidence at its
// offsets, and says what needs review.
func (m *Mapper) fit(p *Placement, ev evidence, at []int, r string) string {
	var took, part []*chunks.Chunk
	var shares []string
	for _, c := range m.byRev[rev{ev.doc, r}] {
		best := 0
		for _, a := range at {
			best = max(best, min(c.End, a+ev.n)-max(c.Start, a))
		}
		switch share := float64(best) / float64(ev.n); {
		case best <= 0:
		case ev.whole && share >= m.minOverlap, !ev.whole && best == ev.n:
			took = append(took, c)
		default:
			part = append(part, c)
			shares = append(shares, fmt.Sprintf("%s %.0f%%", c.ID, 100*share))
		}
	}
	p.New = append(p.New, took...)
	switch {
	case ev.whole && len(part) > 0:
		p.Partial = append(p.Partial, part...)
		return fmt.Sprintf("new chunks cover only part of the old chunk (%s; --min-overlap %g)", strings.Join(shares, ", "), m.minOverlap)
	case len(took) > 0:
		return ""
	case len(part) > 0:
		p.Partial = append(p.Partial, part...)
		return fmt.Sprintf("the span is cut across new chunks %s; none holds it whole", strings.Join(ids(part), ", "))
	}
	return fmt.Sprintf("no new chunk of revision %q overlaps %s", r, ev.what())
}

// ids lists the ids of cs.
func ids(cs []*chunks.Chunk) []string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.ID
	}
	return s
}
