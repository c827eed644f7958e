package compare

import (
	"cmp"
	"slices"
)

// Extremes are the queries that moved most for one candidate on one metric.
type Extremes struct {
	Candidate    string  `json:"candidate"`
	Metric       string  `json:"metric"`
	Regressions  []Moved `json:"regressions,omitempty"`
	Improvements []Moved `json:"improvements,omitempty"`
}

// Moved is one query's values in base and candidate, with both rankings
// when known.
type Moved struct {
	Query string  `json:"query"`
	Text  string  `json:"text,omitempty"`
	Base  float64 `json:"base"`
	Cand  float64 `json:"cand"`
	Diff  float64 `json:"diff"`
	// BaseRanking and CandRanking say where the relevant items sit.
	BaseRanking *Ranking `json:"base_ranking,omitempty"`
	CandRanking *Ranking `json:"cand_ranking,omitempty"`
}

// extremes lists, per candidate and metric, the top largest drops and the
// top largest gains, ties by query id.
func extremes(t *Table, top int) []Extremes {
	var out []Extremes
	base := t.Systems[0]
	for _, c := range t.Systems[1:] {
		for m, name := range t.Metrics {
			diff := func(q int) float64 { return c.Values[m][q] - base.Values[m][q] }
			x := Extremes{Candidate: c.Name, Metric: name}
			for _, q := range t.order(diff, 1)[:min(top, len(t.Queries))] {
				if diff(q) < 0 {
					x.Regressions = append(x.Regressions, t.moved(base, c, m, q))
				}
			}
			for _, q := range t.order(diff, -1)[:min(top, len(t.Queries))] {
				if diff(q) > 0 {
					x.Improvements = append(x.Improvements, t.moved(base, c, m, q))
				}
			}
			out = append(out, x)
		}
	}
	return out
}

// order lists the query positions by diff, ascending (sign 1) or
// descending (sign -1), ties by query id.
func (t *Table) order(diff func(int) float64, sign int) []int {
	idx := make([]int, len(t.Queries))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(sign*cmp.Compare(diff(a), diff(b)), cmp.Compare(t.Queries[a], t.Queries[b]))
	})
	return idx
}

// moved is query q's move on metric m.
func (t *Table) moved(base, cand System, m, q int) Moved {
	b, c := base.Values[m][q], cand.Values[m][q]
	mv := Moved{Query: t.Queries[q], Base: b, Cand: c, Diff: c - b}
	if t.Text != nil {
		mv.Text = t.Text[q]
	}
	if base.Rankings != nil {
		mv.BaseRanking = &base.Rankings[q]
	}
	if cand.Rankings != nil {
		mv.CandRanking = &cand.Rankings[q]
	}
	return mv
}

// Moves lists every query's move for cand on metric, largest drop first:
// the per-query difference chart and scatter plot draw it.
func (r *Result) Moves(cand, metric string) []Moved {
	t := &Table{Queries: r.Queries, Text: r.Text}
	base, c := System{Values: [][]float64{r.Values[r.Base][metric]}}, System{Values: [][]float64{r.Values[cand][metric]}}
	diff := func(q int) float64 { return c.Values[0][q] - base.Values[0][q] }
	var out []Moved
	for _, q := range t.order(diff, 1) {
		out = append(out, t.moved(base, c, 0, q))
	}
	return out
}
