package compare_test

import (
	"fmt"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/stats"
)

// Two runs compared on the same judgments, with a release gate: what
// `ragstat compare --fail-on 'nDCG@3 < -0.1'` does, from Go.
func ExampleRun() {
	var js []judgments.Judgment
	base, cand := "", ""
	for q := range 8 {
		id := fmt.Sprint("q", q)
		js = append(js, judgments.Judgment{Query: id, Item: "good", Grade: 2}, judgments.Judgment{Query: id, Item: "bad"})
		base += id + " Q0 good 1 2 base\n" + id + " Q0 bad 2 1 base\n"
		if q < 6 { // the candidate puts the bad item first on six queries
			cand += id + " Q0 bad 1 2 cand\n" + id + " Q0 good 2 1 cand\n"
		} else {
			cand += id + " Q0 good 1 2 cand\n" + id + " Q0 bad 2 1 cand\n"
		}
	}
	qrels, _ := judgments.New("qrels", js, judgments.Scale{})
	ms, _ := metric.ParseAll([]string{"RR@3", "nDCG@3"})
	ev, err := eval.New(qrels, eval.Policy{}, ms, nil)
	if err != nil {
		panic(err)
	}
	var sides []*compare.Side
	for _, run := range []struct{ name, text string }{{"base", base}, {"cand", cand}} {
		res, err := ev.Run(run.name, input.FromBytes(run.name+".run", []byte(run.text)), runs.Options{})
		if err != nil {
			panic(err)
		}
		side, err := compare.FromResult(res, run.name+".run")
		if err != nil {
			panic(err)
		}
		sides = append(sides, side)
	}
	rule, _ := compare.ParseRule("nDCG@3 < -0.1")
	res, failed, err := compare.Run(nil, sides, nil, compare.Config{
		Options: compare.Options{Stats: stats.Options{Seed: 1, Resamples: 2000}},
		FailOn:  []compare.Rule{rule},
	})
	if err != nil {
		panic(err)
	}
	for _, c := range res.Comparisons {
		fmt.Printf("%s %s: %+.3f, %d wins %d losses, exact p %.4f\n", c.Candidate, c.Metric, c.MeanDiff, c.Wins, c.Losses, c.P)
	}
	fmt.Println(failed)
	// Output:
	// cand RR@3: -0.375, 0 wins 6 losses, exact p 0.0312
	// cand nDCG@3: -0.277, 0 wins 6 losses, exact p 0.0312
	// [cand: nDCG@3 mean difference -0.2768 (rule "nDCG@3 < -0.1")]
}
