package traceimport

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
)

// minTruncated is the shortest prefix, in characters, that counts as a
// truncated passage in the context: shorter ones are too likely to occur by
// chance.
const minTruncated = 20

// context makes the context stage from the generator's input: each item of
// the last retrieval stage (its text from the span, or from the corpus
// where the span has none or only a prefix of the corpus's text) is
// packed whole when its text occurs whole,
// truncated when a prefix of at least MinTruncated characters occurs (the
// longest such prefix is the text kept), and dropped otherwise. Items are
// ranked by where they occur.
func (a *assembler) context(g *span, last *trace.Stage, docs []document, errs *diag.List) trace.Stage {
	text := g.prompt
	st := trace.Stage{Name: trace.ContextStage, Items: []trace.Item{}, Text: &text}
	if last == nil {
		return st
	}
	type found struct {
		item trace.Item
		at   int
	}
	var in []found
	for i, d := range docs {
		body, ok := d.text, d.hasText
		if c := a.r.Corpus.Get(d.id); c != nil && c.HasText && (!ok || len(body) < len(c.Text) && strings.HasPrefix(c.Text, body)) {
			// No text, or the text a packer already cut (LlamaIndex's
			// nodes carry it): the corpus's is the whole passage.
			body, ok = c.Text, true
		}
		if !ok || body == "" {
			errs.Add(a.man.problem(a.r, NoItemText, g.place, g.id, last.Name+": "+d.id))
			continue
		}
		kept, at := locate(text, body)
		switch {
		case at < 0:
			a.man.Context.Dropped++
			continue
		case len(kept) == len(body):
			a.man.Context.Packed++
		default:
			a.man.Context.Truncated++
		}
		it := last.Items[i]
		in = append(in, found{trace.Item{ID: it.ID, Text: &kept, Meta: it.Meta}, at})
	}
	slices.SortStableFunc(in, func(x, y found) int { return cmp.Compare(x.at, y.at) })
	for _, f := range in {
		st.Items = append(st.Items, f.item)
	}
	return st
}

// locate finds body in text: whole, or its longest prefix of at least
// MinTruncated characters. It returns the part found and where, or -1.
// A prefix that occurs has every shorter prefix occurring too, so the
// longest is found by bisection over character boundaries.
func locate(text, body string) (string, int) {
	if at := strings.Index(text, body); at >= 0 {
		return body, at
	}
	bounds := make([]int, 0, len(body))
	for i := range body {
		bounds = append(bounds, i)
	}
	// bounds[k] is the byte length of the k-character prefix.
	if utf8.RuneCountInString(body) <= minTruncated {
		return "", -1
	}
	if !strings.Contains(text, body[:bounds[minTruncated]]) {
		return "", -1
	}
	lo, hi := minTruncated+1, len(bounds)-1 // character counts: lo to try, hi the largest candidate
	best := minTruncated
	for lo <= hi {
		mid := (lo + hi) / 2
		if strings.Contains(text, body[:bounds[mid]]) {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	kept := body[:bounds[best]]
	return kept, strings.Index(text, kept)
}
