package intervene

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// Evidence is one item of a verified context.
type Evidence struct {
	ID    string   `json:"id"`
	Grade int      `json:"grade"`
	Facts []string `json:"facts,omitempty"` // the required facts it supports
	Text  string   `json:"-"`
}

// VerifiedSet is the evidence chosen for one query, and what it lacks.
type VerifiedSet struct {
	Items []Evidence `json:"items"`
	// From says how the items were chosen: "facts" (the support of every
	// required fact) or "judgments" (every valid judged item at or above
	// the threshold).
	From string `json:"from"`
	// Missing lists, for each required fact no alternative of which could
	// be used, why; with From "judgments", why no item qualified.
	Missing []string `json:"missing,omitempty"`
}

// Sufficient reports whether the set holds evidence for everything asked.
func (v VerifiedSet) Sufficient() bool { return len(v.Missing) == 0 && len(v.Items) > 0 }

// texts finds the text of an item: the corpus text, else the text a stage
// of the trace carried for it (the longest such).
type texts struct {
	corpus *corpus.Corpus
	trace  *trace.Trace
	names  func(option string) string // how the reasons name options
}

func (t texts) get(id string) (string, corpus.Meta, bool) {
	var meta corpus.Meta
	text, ok := "", false
	for _, s := range t.trace.Stages {
		for _, it := range s.Items {
			if it.ID != id {
				continue
			}
			meta = meta.Merge(it.Meta)
			if it.Text != nil && len(*it.Text) > len(text) {
				text, ok = *it.Text, true
			}
		}
	}
	if c := t.corpus.Get(id); c != nil {
		meta = meta.Merge(c.Meta)
		if c.HasText {
			text, ok = c.Text, true
		}
	}
	return text, meta, ok
}

// usable says why an item cannot be verified evidence for the topic, or "".
func (t texts) usable(topic *topics.Topic, id string, spans []string) (string, string) {
	text, meta, ok := t.get(id)
	if !ok {
		return "", id + diag.Expand(" has no text (give {corpus})", t.names)
	}
	if out, stale := meta.Validity(topic.Scopes, topic.AsOf.Time); out {
		return "", id + " is out of the query's scope"
	} else if stale {
		return "", id + " is not in effect at the query's date"
	}
	if len(spans) > 0 && !slices.ContainsFunc(spans, func(s string) bool { return strings.Contains(text, s) }) {
		return "", fmt.Sprintf("%s's text lacks its judged span %q", id, spans[0])
	}
	return text, ""
}

// Verify chooses the verified evidence for a query: for every required
// fact, the first alternative whose items all have a text, are valid for
// the query (in scope, in effect at its date) and keep their judged spans;
// without facts, every such judged item graded minGrade or more, best
// grade first. Items keep the order they are first needed in.
func Verify(topic *topics.Topic, q *judgments.Query, c *corpus.Corpus, t *trace.Trace, minGrade int) VerifiedSet {
	return verify(texts{corpus: c, trace: t}, topic, q, minGrade)
}

// verify is Verify with the texts of src, whose names name options in the
// reasons evidence is missing.
func verify(src texts, topic *topics.Topic, q *judgments.Query, minGrade int) VerifiedSet {
	grade := func(id string) int {
		if q == nil {
			return 0
		}
		g, _ := q.Grade(id)
		return g
	}
	spans := func(id string) []string {
		if q == nil {
			return nil
		}
		return q.Spans(id)
	}
	var set VerifiedSet
	add := func(id, text, fact string) {
		i := slices.IndexFunc(set.Items, func(e Evidence) bool { return e.ID == id })
		if i < 0 {
			set.Items = append(set.Items, Evidence{ID: id, Grade: grade(id), Text: text})
			i = len(set.Items) - 1
		}
		if fact != "" && !slices.Contains(set.Items[i].Facts, fact) {
			set.Items[i].Facts = append(set.Items[i].Facts, fact)
		}
	}
	if len(topic.Facts) > 0 {
		set.From = "facts"
		for _, f := range topic.Facts {
			var why []string
			chosen := false
			for _, alt := range f.Support {
				var got []string
				var bad string
				for _, p := range alt {
					want := spans(p.Item)
					if p.Span != "" {
						want = []string{p.Span}
					}
					text, reason := src.usable(topic, p.Item, want)
					if reason != "" {
						bad = reason
						break
					}
					got = append(got, text)
				}
				if bad != "" {
					why = append(why, bad)
					continue
				}
				for i, p := range alt {
					add(p.Item, got[i], f.ID)
				}
				chosen = true
				break
			}
			if !chosen {
				if len(why) == 0 {
					why = []string{"no supporting item is given"}
				}
				set.Missing = append(set.Missing, fmt.Sprintf("fact %s: %s", f.ID, strings.Join(why, "; ")))
			}
		}
		return set
	}
	set.From = "judgments"
	if q == nil {
		set.Missing = []string{"the query has no judgments"}
		return set
	}
	ids := q.Items()
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(grade(b), grade(a)) })
	var why []string
	for _, id := range ids {
		if grade(id) < minGrade {
			continue
		}
		text, reason := src.usable(topic, id, spans(id))
		if reason != "" {
			why = append(why, reason)
			continue
		}
		add(id, text, "")
	}
	if len(set.Items) == 0 {
		if len(why) == 0 {
			why = []string{fmt.Sprintf("no item is judged %d or more", minGrade)}
		}
		set.Missing = []string{strings.Join(why, "; ")}
	}
	return set
}

// IDs lists the set's item ids in order.
func (v VerifiedSet) IDs() []string { return ids(v.Items) }
