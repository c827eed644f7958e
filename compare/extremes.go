package compare

import (
	"cmp"
	"slices"
)

// Extremes are the queries that moved most for one candidate on one metric.
type Extremes struct {
	Candidate    string  `json:"candidate"`
	Metric       string  `json:"metric"`
	Regressions  []Moved `json:"regressions"`
	Improvements []Moved `json:"improvements"`
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
			moved := t.moves(base, c, m)
			x := Extremes{Candidate: c.Name, Metric: name}
			for _, mv := range moved {
				if mv.Diff < 0 && len(x.Regressions) < top {
					x.Regressions = append(x.Regressions, mv)
				}
			}
			slices.SortStableFunc(moved, func(a, b Moved) int {
				return cmp.Or(cmp.Compare(b.Diff, a.Diff), cmp.Compare(a.Query, b.Query))
			})
			for _, mv := range moved {
				if mv.Diff > 0 && len(x.Improvements) < top {
					x.Improvements = append(x.Improvements, mv)
				}
			}
			out = append(out, x)
		}
	}
	return out
}

// moves lists every query's move on metric m, largest drop first.
func (t *Table) moves(base, cand System, m int) []Moved {
	out := make([]Moved, len(t.Queries))
	for q, id := range t.Queries {
		b, c := base.Values[m][q], cand.Values[m][q]
		out[q] = Moved{Query: id, Base: b, Cand: c, Diff: c - b}
		if t.Text != nil {
			out[q].Text = t.Text[q]
		}
		if base.Rankings != nil {
			out[q].BaseRanking = &base.Rankings[q]
		}
		if cand.Rankings != nil {
			out[q].CandRanking = &cand.Rankings[q]
		}
	}
	slices.SortStableFunc(out, func(a, b Moved) int {
		return cmp.Or(cmp.Compare(a.Diff, b.Diff), cmp.Compare(a.Query, b.Query))
	})
	return out
}

// Moves lists every query's move for cand on metric, largest drop first:
// the per-query difference chart and scatter plot draw it.
func (r *Result) Moves(cand, metric string) []Moved {
	t := &Table{Queries: r.Queries, Text: r.Text}
	sys := func(name string) System { return System{Values: [][]float64{r.Values[name][metric]}} }
	return t.moves(sys(r.Base), sys(cand), 0)
}
