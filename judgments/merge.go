package judgments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// Sourced is a judgment with the set it was read from.
type Sourced struct {
	Judgment
	From *Set
}

// A Resolver decides between two different grades of one (query, item)
// pair from two sets, kept (read first) and other: the judgment that
// stands, and true; false leaves the pair an error naming both. It is
// asked about people's grades; LLM labels follow Merge's own rule.
type Resolver func(kept, other Sourced) (Sourced, bool)

// Merge joins the judgments of several sets, read from several files, into
// one set on scale, named after them all ("a.txt + b.jsonl"): a pair judged
// in more than one set keeps its first judgment when the grades agree (the
// spans of both), and is an error naming both files and lines when they
// differ, unless resolve (nil: none) settles it. Judgments keep their
// lines in their own files.
//
// LLM labels are merged apart from people's grades, which always take
// precedence when an evaluation reads both (View): a pair may keep a
// person's grade and an LLM label. Two LLM labels of one pair keep the
// later set's, and the merged set's Notes say so.
func Merge(sets []*Set, scale Scale, resolve Resolver) (*Set, error) {
	if len(sets) == 1 {
		return sets[0], nil
	}
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.File
	}
	var out []Sourced
	at := map[[2]string]int{}
	var errs diag.List
	for _, s := range sets {
		for _, id := range s.IDs() {
			for _, j := range s.Judgments(id) {
				key := [2]string{j.Query, j.Item}
				i, seen := at[key]
				if !seen {
					at[key] = len(out)
					out = append(out, Sourced{j, s})
					continue
				}
				kept, other := out[i], Sourced{j, s}
				if kept.Grade == other.Grade {
					out[i].Spans = union(kept.Spans, other.Spans)
					continue
				}
				if resolve != nil {
					if won, ok := resolve(kept, other); ok {
						out[i] = won
						continue
					}
				}
				if errs.Add(&diag.Error{File: s.File, Line: j.Line, Query: j.Query, Item: j.Item,
					Msg:  fmt.Sprintf("graded %d here and %d in %s line %d", other.Grade, kept.Grade, kept.From.File, kept.Line),
					Hint: "the judgment files disagree: correct one of them, or give one file"}) {
					return nil, errs.Err()
				}
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	js := make([]Judgment, len(out))
	for i, j := range out {
		js[i] = j.Judgment
	}
	llm, notes := mergeLabels(sets)
	merged, err := New(strings.Join(names, " + "), append(js, llm...), scale)
	if err != nil {
		return nil, err
	}
	merged.notes = notes
	return merged, nil
}

// mergeLabels joins the LLM labels of sets: of two labels of one pair, the
// later set's stands. The notes count the pairs so settled, with the first
// of them.
func mergeLabels(sets []*Set) ([]Judgment, []string) {
	var out []Judgment
	at := map[[2]string]int{}
	from := map[[2]string]*Set{}
	replaced := 0
	var first string
	for _, s := range sets {
		for _, id := range s.LLMQueries() {
			for _, j := range s.LLMJudgments(id) {
				key := [2]string{j.Query, j.Item}
				i, seen := at[key]
				if !seen {
					at[key], from[key] = len(out), s
					out = append(out, j)
					continue
				}
				if replaced == 0 {
					first = fmt.Sprintf("query %q item %q: %s line %d replaces %s line %d", j.Query, j.Item, s.File, j.Line, from[key].File, out[i].Line)
				}
				replaced++
				out[i], from[key] = j, s
			}
		}
	}
	if replaced == 0 {
		return out, nil
	}
	return out, []string{fmt.Sprintf("%d pairs carry an LLM label in two judgment files: the later file's label is kept (%s)", replaced, first)}
}

// union is a's spans, then those of b that a lacks.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
