package judgments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// sourced is a judgment with the set it was read from.
type sourced struct {
	Judgment
	From *Set
}

// Merge joins the judgments of several sets, read from several files, into
// one set on scale, named after them all ("a.txt + b.jsonl"): a pair judged
// in more than one set keeps its first judgment when the grades agree (the
// spans and facts of both, the first's meta), and is an error naming both
// files and lines when they differ. Judgments keep their lines in their
// own files.
//
// LLM labels are merged apart from people's grades, which always take
// precedence when an evaluation reads both (View): a pair may keep a
// person's grade and an LLM label. Two LLM labels of one pair keep the
// later set's, and the merged set's Notes say so.
func Merge(sets []*Set, scale Scale) (*Set, error) {
	if len(sets) == 1 {
		return sets[0], nil
	}
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.File
	}
	var errs diag.List
	out := joinPairs(sets, false, func(kept *sourced, other sourced) bool {
		if kept.Grade == other.Grade {
			kept.Spans = union(kept.Spans, other.Spans)
			kept.Facts = union(kept.Facts, other.Facts)
			return false
		}
		return errs.Add(&diag.Error{File: other.From.File, Line: other.Line, Query: other.Query, Item: other.Item,
			Msg:  fmt.Sprintf("graded %d here and %d in %s line %d", other.Grade, kept.Grade, kept.From.File, kept.Line),
			Hint: "the judgment files disagree: correct one of them, or give one file"})
	})
	if err := errs.Err(); err != nil {
		return nil, err
	}
	llm, notes := mergeLabels(sets)
	merged, err := New(strings.Join(names, " + "), append(out, llm...), scale)
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
	replaced := 0
	var first string
	out := joinPairs(sets, true, func(kept *sourced, other sourced) bool {
		if replaced == 0 {
			first = fmt.Sprintf("query %q item %q: %s line %d replaces %s line %d", other.Query, other.Item, other.From.File, other.Line, kept.From.File, kept.Line)
		}
		replaced++
		*kept = other
		return false
	})
	if replaced == 0 {
		return out, nil
	}
	return out, []string{fmt.Sprintf("%d pairs carry an LLM label in two judgment files: the later file's label is kept (%s)", replaced, first)}
}

// joinPairs lists the judgments of sets, set by set and query by query
// (people's grades, or the LLM labels), a pair once: at its first
// judgment, which repeat may change when the pair comes again. repeat
// returning true stops the listing.
func joinPairs(sets []*Set, labels bool, repeat func(kept *sourced, other sourced) (stop bool)) []Judgment {
	var out []sourced
	at := map[[2]string]int{}
	for _, s := range sets {
		ids, of := s.IDs(), s.Judgments
		if labels {
			ids, of = s.LLMQueries(), s.LLMJudgments
		}
		for _, id := range ids {
			for _, j := range of(id) {
				key := [2]string{j.Query, j.Item}
				if i, seen := at[key]; seen {
					if repeat(&out[i], sourced{j, s}) {
						return nil
					}
					continue
				}
				at[key] = len(out)
				out = append(out, sourced{j, s})
			}
		}
	}
	js := make([]Judgment, len(out))
	for i, j := range out {
		js[i] = j.Judgment
	}
	return js
}

// union is a's strings (spans, facts), then those of b that a lacks.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
