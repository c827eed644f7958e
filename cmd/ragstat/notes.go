package main

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/eval"
)

// notes are facts printed with the results: what was left out or folded.
func notes(folded int, p eval.Policy, results []*eval.Result) []string {
	var out []string
	if n := folded; n > 0 {
		out = append(out, fmt.Sprintf("%d judgments folded into their document (grade = the highest)", n))
	}
	for _, r := range results {
		if len(r.Excluded) > 0 {
			out = append(out, fmt.Sprintf("%s: %d unanswerable queries excluded from the means (the abstention slice): %s", r.Name, len(r.Excluded), list(r.Excluded)))
		}
		if r.Folded > 0 {
			out = append(out, fmt.Sprintf("%s: %d items folded into an earlier item of the same document", r.Name, r.Folded))
		}
		if r.Unjudged > 0 {
			out = append(out, fmt.Sprintf("%s: %d returned items have no judgment (--unjudged %s)", r.Name, r.Unjudged, p.Unjudged))
		}
	}
	return out
}

// warn tells stderr which queries were ignored under --queries judged/run.
func warn(e *env, results []*eval.Result) {
	for _, r := range results {
		if len(r.Ignored) > 0 {
			fmt.Fprintf(e.stderr, "ragstat: %s: %d queries not evaluated (present on one side only): %s\n", r.Name, len(r.Ignored), list(r.Ignored))
		}
		missing := 0
		for _, row := range r.Rows {
			if row.Missing {
				missing++
			}
		}
		if missing > 0 {
			fmt.Fprintf(e.stderr, "ragstat: %s: %d judged queries absent from the run scored as empty lists\n", r.Name, missing)
		}
	}
}

func list(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}
