package eval_test

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

// Judgments and ranked lists held in memory, scored under the strict
// default policy: the zero Policy.
func Example() {
	qrels, err := judgments.New("qrels", []judgments.Judgment{
		{Query: "refund", Item: "policy", Grade: 3},
		{Query: "refund", Item: "overview", Grade: 1},
		{Query: "refund", Item: "noise", Grade: 0},
		{Query: "limits", Item: "limit", Grade: 3},
		{Query: "limits", Item: "noise", Grade: 0},
	}, judgments.Scale{})
	if err != nil {
		panic(err)
	}
	ms, err := metric.ParseAll([]string{"R@2", "RR@2", "nDCG@2"})
	if err != nil {
		panic(err)
	}
	ev, err := eval.New(qrels, eval.Policy{}, ms, nil)
	if err != nil {
		panic(err)
	}
	res, err := ev.Lists("bm25", map[string][]string{
		"refund": {"noise", "policy", "overview"},
		"limits": {"limit"},
	})
	if err != nil {
		panic(err)
	}
	for _, row := range res.Rows {
		fmt.Printf("%-7s R@2 %.2f  RR@2 %.2f\n", row.Query, row.Values[0], row.Values[1])
	}
	mrr, err := res.MeanOf("rr@2") // any spelling metric.Parse reads
	if err != nil {
		panic(err)
	}
	fmt.Printf("MRR@2 %.2f over %d queries\n", mrr, len(res.Rows))
	fmt.Println(ev.Policy())
	// Output:
	// refund  R@2 0.50  RR@2 0.50
	// limits  R@2 1.00  RR@2 1.00
	// MRR@2 0.75 over 2 queries
	// min-grade 1, grades 0..3, gain exp, unjudged error, unanswerable error, queries exact, unit item, order score
}

// Files, or any io.Reader, in TREC format; a policy that counts unjudged
// items as non-relevant and ranks by the rank column.
func ExampleEvaluator_Run() {
	qrels, err := input.FromReader("qrels.txt", strings.NewReader("q1 0 d1 2\nq1 0 d2 0\n"))
	if err != nil {
		panic(err)
	}
	defer qrels.Close()
	set, err := judgments.Read(qrels, judgments.Options{})
	if err != nil {
		panic(err)
	}
	p := eval.DefaultPolicy()
	p.Unjudged, p.Order = eval.UnjudgedNonrelevant, runs.ByRank
	ms, _ := metric.ParseAll([]string{"nDCG@10", "Judged@10"})
	ev, err := eval.New(set, p, ms, nil)
	if err != nil {
		panic(err)
	}
	run := input.FromBytes("run.txt", []byte("q1 Q0 d9 1 0.1 x\nq1 Q0 d1 2 0.9 x\n"))
	res, err := ev.Run("x", run, runs.Options{})
	if err != nil {
		panic(err)
	}
	ndcg, _ := res.MeanOf("ndcg@10")
	judged, _ := res.MeanOf("Judged@10")
	fmt.Printf("nDCG@10 %.4f, Judged@10 %.1f, %d unjudged returned\n", ndcg, judged, res.Unjudged)
	if _, err := res.MeanOf("AP"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// nDCG@10 0.6309, Judged@10 0.1, 1 unjudged returned
	// x: no AP among the metrics computed (nDCG@10 Judged@10)
}

// A tool's preset set on the strict default policy, then the judgments
// read on its scale and runs evaluated under it. Errors about a policy
// choice name the option, so a caller can name its own flag.
func ExamplePolicy_SetLike() {
	p := eval.DefaultPolicy()
	preset, err := p.SetLike("trec_eval")
	if err != nil {
		panic(err)
	}
	ms, err := metric.ParseAllLike([]string{"R@5", "RR@5", "nDCG@5"}, p.Like)
	if err != nil {
		panic(err)
	}
	qrels, err := judgments.Read(input.FromBytes("qrels.txt", []byte("refund 0 policy 3\nrefund 0 noise 0\nlimits 0 limit 2\n")), judgments.Options{Scale: p.Scale})
	if err != nil {
		panic(err)
	}
	ev, err := eval.New(qrels, p, ms, nil)
	if err != nil {
		panic(err)
	}
	res, err := ev.Lists("bm25", map[string][]string{"refund": {"noise", "policy"}, "limits": {"other", "limit"}})
	if err != nil {
		panic(err)
	}
	for i, m := range res.Metrics {
		fmt.Printf("%s %.4f\n", m.Name(), res.Mean[i])
	}
	fmt.Println(len(preset), "policies set by the preset")
	var u eval.Unjudged
	fmt.Println(u.UnmarshalText([]byte("maybe")))
	// Output:
	// R@5 1.0000
	// RR@5 0.5000
	// nDCG@5 0.6309
	// 5 policies set by the preset
	// policy: unjudged maybe is unknown: use error, nonrelevant, skip, bounds
}
