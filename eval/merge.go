package eval

import (
	"cmp"
	"fmt"
	"slices"
)

// Merge combines the results of one run evaluated on disjoint parts of its
// queries (shards, see Evaluator.Restrict) into the result one evaluation
// over every query gives, bit for bit: rows and excluded queries in the
// judgments' order, ignored queries as Run lists them (judged ones in
// the judgments' order, then the run's unjudged ones by id), the means
// recomputed over the merged rows in that order, counts summed. position
// gives a judged query's place in the judgments.
func Merge(parts []*Result, position func(query string) (int, bool)) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	first := parts[0]
	out := &Result{Name: first.Name, File: first.File, Format: first.Format, Metrics: first.Metrics}
	var rows [][]Row
	var judgedIgnored, unjudgedIgnored []string
	bounds := false
	for _, p := range parts {
		if p.Name != first.Name || p.File != first.File || len(p.Metrics) != len(first.Metrics) {
			return nil, fmt.Errorf("run %q (%s) and run %q (%s) are not one run", first.Name, first.File, p.Name, p.File)
		}
		rows = append(rows, p.Rows)
		out.Excluded = append(out.Excluded, p.Excluded...)
		out.ScoredUnanswerable = append(out.ScoredUnanswerable, p.ScoredUnanswerable...)
		for _, q := range p.Ignored {
			if _, ok := position(q); ok {
				judgedIgnored = append(judgedIgnored, q)
			} else {
				unjudgedIgnored = append(unjudgedIgnored, q)
			}
		}
		out.Unjudged += p.Unjudged
		out.Folded += p.Folded
		bounds = bounds || p.MeanHigh != nil
	}
	byPosition := func(a, b string) int {
		i, _ := position(a)
		j, _ := position(b)
		return cmp.Compare(i, j)
	}
	var err error
	if out.Rows, err = MergeRows(rows, position); err != nil {
		return nil, fmt.Errorf("run %q: %w", first.Name, err)
	}
	for _, qs := range [][]string{out.Excluded, out.ScoredUnanswerable, judgedIgnored} {
		slices.SortFunc(qs, byPosition)
	}
	slices.Sort(unjudgedIgnored)
	out.Ignored = append(judgedIgnored, unjudgedIgnored...)
	out.Mean = summarize(out.Metrics, out.Rows, func(r Row) []float64 { return r.Values })
	if bounds {
		out.MeanHigh = summarize(out.Metrics, out.Rows, func(r Row) []float64 { return r.High })
	}
	return out, nil
}

// MergeRows puts the rows of every part (disjoint sets of queries) in the
// order one evaluation over every query gives them: by each query's place,
// which position returns. It is the one merge of per-query values: eval's,
// stages' and compare's shards merge through it.
func MergeRows(parts [][]Row, position func(query string) (int, bool)) ([]Row, error) {
	var out []Row
	for _, rows := range parts {
		for _, row := range rows {
			if _, ok := position(row.Query); !ok {
				return nil, fmt.Errorf("query %q has a row but no place in the judgments", row.Query)
			}
		}
		out = append(out, rows...)
	}
	slices.SortFunc(out, func(a, b Row) int {
		i, _ := position(a.Query)
		j, _ := position(b.Query)
		return cmp.Compare(i, j)
	})
	return out, nil
}
