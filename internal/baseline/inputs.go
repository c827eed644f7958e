package baseline

import (
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/topics"
)

// Inputs takes the passages with text from a corpus (those without text
// are left out: BM25 cannot rank them) and one query per topic, its text.
// A corpus without text, or a topic without text, is an error.
func Inputs(cs *corpus.Corpus, ts *topics.Set) ([]Doc, []Query, error) {
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

// Empty lists the queries that matched no passage: they are absent from
// the run.
func Empty(rs []Ranking) []string {
	var out []string
	for _, r := range rs {
		if len(r.Hits) == 0 {
			out = append(out, r.Query)
		}
	}
	return out
}
