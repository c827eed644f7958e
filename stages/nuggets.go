package stages

import (
	"fmt"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/topics"
)

// NuggetReport holds nuggetizer's four scores of the answers (TREC RAG
// 2024; topics.NuggetScores), means over the traces with an answer whose
// query has an answer assignment.
type NuggetReport struct {
	Answers     int     `json:"answers"`
	StrictVital float64 `json:"strict_vital"`
	Vital       float64 `json:"vital"`
	StrictAll   float64 `json:"strict_all"`
	All         float64 `json:"all"`
}

// nuggetTally sums the four scores exactly, in NuggetReport's order.
type nuggetTally struct {
	answers int
	sums    [4]exactSum
}

func (n *nuggetTally) add(s topics.NuggetScores) {
	n.answers++
	for i, v := range [4]float64{s.StrictVital, s.VitalScore, s.StrictAll, s.AllScore} {
		n.sums[i].add(v)
	}
}

func (n *nuggetTally) merge(o nuggetTally) {
	n.answers += o.answers
	for i := range n.sums {
		n.sums[i].merge(o.sums[i])
	}
}

// report is the means, nil over no answer.
func (n *nuggetTally) report() *NuggetReport {
	if n.answers == 0 {
		return nil
	}
	d := float64(n.answers)
	return &NuggetReport{Answers: n.answers, StrictVital: n.sums[0].value() / d, Vital: n.sums[1].value() / d,
		StrictAll: n.sums[2].value() / d, All: n.sums[3].value() / d}
}

// terms are the exact sums' terms, for a shard's Partial.
func (n *nuggetTally) terms() *nuggetTerms {
	if n.answers == 0 {
		return nil
	}
	t := &nuggetTerms{Answers: n.answers}
	for i := range n.sums {
		t.Sums[i] = n.sums[i].partials
	}
	return t
}

// nuggetTerms are a shard's nugget sums: the answers scored and the exact
// sums' terms of the four scores, in NuggetReport's order.
type nuggetTerms struct {
	Answers int          `json:"answers"`
	Sums    [4][]float64 `json:"sums_terms"`
}

func (t *nuggetTerms) tally() nuggetTally {
	var n nuggetTally
	if t == nil {
		return n
	}
	n.answers = t.Answers
	for i := range n.sums {
		n.sums[i] = exactSum{t.Sums[i]}
	}
	return n
}

// nuggetsOf adds the scores of the trace's answer when its query has an
// answer assignment and the trace records an answer.
func (a *answerTally) nuggetsOf(v *view, scores map[string]topics.NuggetScores) {
	if s, ok := scores[v.t.Query]; ok && v.t.Answer != nil {
		a.nuggets.add(s)
	}
}

// NuggetAnswers are the four scores of each query's answer in
// nuggetizer's assignments as, read from file (retrieval lines, which
// support facts through topics.Options, are passed over). Two answers of
// one query (two runs' assignments) are an error naming both lines: the
// traces are one system's answers.
func NuggetAnswers(file string, as []topics.Assignment) (map[string]topics.NuggetScores, error) {
	scores := map[string]topics.NuggetScores{}
	line := map[string]int{}
	for _, a := range as {
		if a.Doc != "" {
			continue
		}
		if old, ok := line[a.Query]; ok {
			return nil, &diag.Error{File: file, Line: a.Line, Query: a.Query,
				Msg: fmt.Sprintf("a second answer assigned (also line %d): give the assignments of the one system the traces record", old)}
		}
		line[a.Query] = a.Line
		scores[a.Query] = a.Scores()
	}
	return scores, nil
}
