package stages

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ragstat/ragstat/eval"
)

// TurnSlice is every stage's metric means over the scored traces (of
// answerable judged queries) that are one turn of their conversation
// (trace.Trace.Turn): how a conversation's later turns fare against its
// first.
type TurnSlice struct {
	Turn   int         `json:"turn"`
	Traces int         `json:"traces"`
	Scored int         `json:"scored"`
	Stages []TurnStage `json:"stages"`
}

// TurnStage is one stage's means within a turn slice: each metric's mean
// over the scored traces where it is defined (null where it is nowhere).
type TurnStage struct {
	Name   string        `json:"stage"`
	Values []MetricValue `json:"means"`
}

// turnTally sums one turn's values: per stage and metric, the exact sum
// and the number of traces where the value is defined.
type turnTally struct {
	traces, scored int
	sums           [][]exactSum
	counts         [][]int
}

// turnTerms is a turn slice's sums as a shard's partial result holds them.
type turnTerms struct {
	Turn   int           `json:"turn"`
	Traces int           `json:"traces"`
	Scored int           `json:"scored"`
	Terms  [][][]float64 `json:"terms"` // per stage and metric: the exact sum's terms
	Counts [][]int       `json:"counts"`
}

// addTurn counts a trace of turn n with its rows (nil when not scored).
func (t *tally) addTurn(n int, rows []eval.Row) {
	if n <= 0 {
		return
	}
	tt := t.turn(n)
	tt.traces++
	if len(rows) == 0 {
		return
	}
	tt.scored++
	for i, row := range rows {
		tt.grow(i, len(row.Values))
		for k, x := range row.Values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				tt.sums[i][k].add(x)
				tt.counts[i][k]++
			}
		}
	}
}

// mergeTurns adds another tally's turns.
func (t *tally) mergeTurns(o map[int]*turnTally) {
	for n, ot := range o {
		tt := t.turn(n)
		tt.traces += ot.traces
		tt.scored += ot.scored
		for i := range ot.sums {
			tt.grow(i, len(ot.sums[i]))
			for k := range ot.sums[i] {
				tt.sums[i][k].merge(ot.sums[i][k])
				tt.counts[i][k] += ot.counts[i][k]
			}
		}
	}
}

// turn is the tally of turn n, made when it has none.
func (t *tally) turn(n int) *turnTally {
	if t.turns == nil {
		t.turns = map[int]*turnTally{}
	}
	tt := t.turns[n]
	if tt == nil {
		tt = &turnTally{}
		t.turns[n] = tt
	}
	return tt
}

// grow makes room for metric i's k values.
func (tt *turnTally) grow(i, k int) {
	for len(tt.sums) <= i {
		tt.sums, tt.counts = append(tt.sums, nil), append(tt.counts, nil)
	}
	for len(tt.sums[i]) < k {
		tt.sums[i], tt.counts[i] = append(tt.sums[i], exactSum{}), append(tt.counts[i], 0)
	}
}

// turnSlices are the tally's turns, in turn order; nil when no trace is
// a conversation's second turn or later (one turn is no slice).
func (t *tally) turnSlices(names []string, metrics []string) []TurnSlice {
	if !slices.ContainsFunc(slices.Collect(maps.Keys(t.turns)), func(n int) bool { return n > 1 }) {
		return nil
	}
	var out []TurnSlice
	for _, n := range slices.Sorted(maps.Keys(t.turns)) {
		tt := t.turns[n]
		s := TurnSlice{Turn: n, Traces: tt.traces, Scored: tt.scored}
		for i, name := range names {
			st := TurnStage{Name: name}
			for k, m := range metrics {
				v := MetricValue{Metric: m}
				if i < len(tt.sums) && k < len(tt.sums[i]) && tt.counts[i][k] > 0 {
					mean := tt.sums[i][k].value() / float64(tt.counts[i][k])
					v.Value = &mean
				}
				st.Values = append(st.Values, v)
			}
			s.Stages = append(s.Stages, st)
		}
		out = append(out, s)
	}
	return out
}

// turnTerms are the turns as a partial result keeps them.
func (t *tally) turnTerms() []turnTerms {
	var out []turnTerms
	for _, n := range slices.Sorted(maps.Keys(t.turns)) {
		tt := t.turns[n]
		tp := turnTerms{Turn: n, Traces: tt.traces, Scored: tt.scored, Counts: tt.counts}
		for _, stage := range tt.sums {
			var terms [][]float64
			for _, s := range stage {
				terms = append(terms, s.partials)
			}
			tp.Terms = append(tp.Terms, terms)
		}
		out = append(out, tp)
	}
	return out
}

// turnsOf reads a partial result's turns back.
func turnsOf(terms []turnTerms) (map[int]*turnTally, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := map[int]*turnTally{}
	for _, tp := range terms {
		if tp.Turn <= 0 || out[tp.Turn] != nil || len(tp.Counts) != len(tp.Terms) {
			return nil, fmt.Errorf("the partial result's turn %d is malformed", tp.Turn)
		}
		for i := range tp.Terms {
			if len(tp.Counts[i]) != len(tp.Terms[i]) {
				return nil, fmt.Errorf("the partial result's turn %d is malformed", tp.Turn)
			}
		}
		tt := &turnTally{traces: tp.Traces, scored: tp.Scored, counts: tp.Counts}
		for _, stage := range tp.Terms {
			var sums []exactSum
			for _, partials := range stage {
				sums = append(sums, exactSum{partials: partials})
			}
			tt.sums = append(tt.sums, sums)
		}
		out[tp.Turn] = tt
	}
	return out, nil
}
