package baseline

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/topics"
)

// inputs takes the passages with text from a corpus (those without text
// are left out: BM25 cannot rank them) and one query per topic, its text.
// A corpus without text, or a topic without text, is an error.
func inputs(cs *corpus.Corpus, ts *topics.Set) ([]Doc, []Query, error) {
	var docs []Doc
	for _, it := range cs.Items {
		if strings.TrimSpace(it.Text) != "" {
			docs = append(docs, Doc{ID: it.ID, Text: it.Text})
		}
	}
	if len(docs) == 0 {
		return nil, nil, &diag.Error{File: cs.File, Msg: "no item has text: BM25 needs the passages' text"}
	}
	var qs []Query
	for _, t := range ts.Topics {
		if strings.TrimSpace(t.Text) == "" {
			return nil, nil, &diag.Error{File: ts.File, Line: t.Line, Query: t.ID, Msg: "the topic has no text to search with"}
		}
		qs = append(qs, Query{ID: t.ID, Text: t.Text})
	}
	return docs, qs, nil
}

// Result is a baseline run and what went into it.
type Result struct {
	Rankings []Ranking // one per topic, in the topics' order
	Passages int       // passages indexed
	LeftOut  int       // corpus items without text, not indexed
	K        int       // passages per query
}

// Run ranks the passages of cs that have text for every topic of ts
// (inputs, then Search).
func Run(cs *corpus.Corpus, ts *topics.Set, opt Options) (*Result, error) {
	docs, qs, err := inputs(cs, ts)
	if err != nil {
		return nil, err
	}
	rs, err := Search(docs, qs, opt)
	if err != nil {
		return nil, err
	}
	return &Result{Rankings: rs, Passages: len(docs), LeftOut: len(cs.Items) - len(docs), K: opt.K}, nil
}

// Summary says in one line what was ranked.
func (r *Result) Summary() string {
	return fmt.Sprintf("BM25 over %d passages (%d without text left out), %d queries, top %d",
		r.Passages, r.LeftOut, len(r.Rankings), r.K)
}

// Empty lists the queries that matched no passage: they are absent from
// the run.
func (r *Result) Empty() []string {
	var out []string
	for _, r := range r.Rankings {
		if len(r.Hits) == 0 {
			out = append(out, r.Query)
		}
	}
	return out
}

// Warnings are the lines a caller shows beside the run: the queries that
// matched no passage, if any.
func (r *Result) Warnings() []string {
	empty := r.Empty()
	if len(empty) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("warning: %d queries matched no passage and are absent from the run: %s", len(empty), strings.Join(empty, ", "))}
}
