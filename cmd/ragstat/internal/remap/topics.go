package remap

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/topics"
)

// Topics is the outcome of remapping the facts' supporting items of a
// topics set.
type Topics struct {
	Topics []*topics.Topic // every topic, with supports in new chunk ids
	Review []Review
	Counts []Counts // per topic with facts: how its supporting pieces fared
}

// Topics remaps the support of every fact. A supporting piece that lands in
// several new chunks becomes several alternatives; an alternative with a
// piece that lands nowhere whole is dropped, and a fact left with no
// alternative is dropped, each with a review line. A supporting item that
// is not an old chunk is an error.
func (m *Mapper) Topics(s *topics.Set) (*Topics, error) {
	if err := m.checkTopics(s); err != nil {
		return nil, err
	}
	out := &Topics{}
	for _, t := range s.Topics {
		nt := *t
		nt.Facts = nil
		counts := Counts{ID: t.ID}
		for _, f := range t.Facts {
			if nf, ok := out.fact(m, t.ID, f, &counts); ok {
				nt.Facts = append(nt.Facts, nf)
			}
		}
		if counts.Total > 0 {
			out.Counts = append(out.Counts, counts)
		}
		out.Topics = append(out.Topics, &nt)
	}
	return out, nil
}

func (m *Mapper) checkTopics(s *topics.Set) error {
	var errs diag.List
	for _, t := range s.Topics {
		for _, f := range t.Facts {
			for _, alt := range f.Support {
				for _, p := range alt {
					if m.old.Get(p.Item) == nil && errs.Add(&diag.Error{File: s.File, Line: t.Line, Query: t.ID, Item: p.Item,
						Msg:  fmt.Sprintf("fact %q: supporting item is not in the old chunk file %s", f.ID, m.old.File),
						Hint: "remap needs the position of every supporting item"}) {
						return errs.Err()
					}
				}
			}
		}
	}
	return errs.Err()
}

// fact remaps the support of one fact; ok is false when none survives.
func (out *Topics) fact(m *Mapper, topic string, f topics.Fact, counts *Counts) (topics.Fact, bool) {
	nf := topics.Fact{ID: f.ID, Text: f.Text}
	for _, alt := range f.Support {
		for _, na := range out.alternative(m, topic, f.ID, alt, counts) {
			if !slices.ContainsFunc(nf.Support, func(s topics.Support) bool { return slices.Equal(s, na) }) {
				nf.Support = append(nf.Support, na)
			}
		}
	}
	if len(nf.Support) > 0 {
		return nf, true
	}
	var old []Source
	for _, alt := range f.Support {
		for _, p := range alt {
			old = append(old, Source{Item: p.Item, Span: p.Span})
		}
	}
	out.Review = append(out.Review, Review{Query: topic, Fact: f.ID, Status: Unmapped, Old: old,
		Reason: "no supporting alternative survived; the fact is left out of the new topics"})
	return nf, false
}

// alternative remaps one supporting alternative: every combination of the
// new chunks its pieces landed in.
func (out *Topics) alternative(m *Mapper, topic, fact string, alt topics.Support, counts *Counts) []topics.Support {
	combos := []topics.Support{nil}
	for _, piece := range alt {
		p := m.Place(piece.Item, piece.Span)
		counts.add(p.Status)
		if p.Status != Mapped {
			out.Review = append(out.Review, Review{Query: topic, Fact: fact, Status: p.Status,
				Old: []Source{{Item: piece.Item, Span: piece.Span}}, Granted: ids(p.New), Partial: ids(p.Partial),
				Reason: strings.TrimSuffix(p.Reason+"; "+dropped(p), "; ")})
		}
		var next []topics.Support
		for _, combo := range combos {
			for _, c := range p.New {
				next = append(next, append(slices.Clone(combo), topics.Piece{Item: c.ID, Span: piece.Span}))
			}
		}
		combos = next
	}
	return combos
}

// dropped says that an alternative is lost with a piece that landed nowhere.
func dropped(p Placement) string {
	if len(p.New) > 0 {
		return ""
	}
	return "the supporting alternative is dropped"
}
