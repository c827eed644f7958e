package stages_test

import (
	"bytes"
	"fmt"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// A pipeline records its stages with a trace.Recorder; stages scores every
// stage and says where the relevant evidence stopped.
func Example() {
	var log bytes.Buffer
	rec, _ := trace.NewRecorder(&log, "hybrid", nil)
	for _, q := range []struct {
		id                  string
		candidates, context []string
	}{
		{"refund", []string{"policy", "faq", "noise"}, []string{"faq"}},
		{"limits", []string{"limit", "noise"}, []string{"limit"}},
	} {
		b := rec.Query(q.id)
		var cands, packed []trace.Item
		for i, id := range q.candidates {
			cands = append(cands, trace.Scored(id, float64(10-i)))
		}
		for _, id := range q.context {
			packed = append(packed, trace.Item{ID: id})
		}
		b.Stage("candidates", cands...).Stage("context", packed...)
		if err := b.Record(); err != nil {
			panic(err)
		}
	}
	traces, err := trace.Read(input.FromBytes("traces.jsonl", log.Bytes()))
	if err != nil {
		panic(err)
	}
	qrels, _ := judgments.New("qrels", []judgments.Judgment{
		{Query: "refund", Item: "policy", Grade: 3}, {Query: "refund", Item: "faq", Grade: 1},
		{Query: "refund", Item: "noise", Grade: 0},
		{Query: "limits", Item: "limit", Grade: 2}, {Query: "limits", Item: "noise", Grade: 0},
	}, judgments.Scale{})
	tops, err := topics.Read(input.FromBytes("topics.jsonl", []byte(`{"id":"refund","text":"refund window"}
{"id":"limits","text":"upload limits"}
`)))
	if err != nil {
		panic(err)
	}
	ms, _ := metric.ParseAll([]string{"R", "nDCG"})
	res, err := stages.Evaluate(stages.Input{Judgments: qrels, Topics: tops}, stages.Slice(traces),
		stages.Options{Policy: eval.DefaultPolicy(), Metrics: ms, Truncated: stages.TruncatedError})
	if err != nil {
		panic(err)
	}
	sys := res.Systems[0]
	for _, st := range sys.Stages {
		r, _ := st.Eval.MeanOf("R")
		fmt.Printf("%s: R %.2f\n", st.Name, r)
	}
	for _, step := range sys.Loss.Steps {
		fmt.Printf("%s %d\n", step.Status, step.Count)
	}
	// Output:
	// candidates: R 1.00
	// context: R 0.75
	// dropped in packing 1
	// delivered 2
}
