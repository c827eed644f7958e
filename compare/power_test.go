package compare

import (
	"math"
	"testing"
)

func TestPower(t *testing.T) {
	// Four queries, sd √(0.05/3): the paired t-test at 95% with 80%
	// power resolves 0.2686 (worked in analysis's tests).
	r := &Result{Settings: Settings{Level: 0.95}, Metrics: []string{"nDCG@10"},
		Comparisons: []Comparison{{Candidate: "b", Metric: "nDCG@10", Stat: Stat{N: 4, SD: math.Sqrt(0.05 / 3)}}}}
	rules := []Rule{}
	for _, s := range []string{"nDCG@10 < -0.01", "ndcg@10 < -0.3"} {
		rule, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, rule)
	}
	ps, err := r.power(rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Protects || !ps[1].Protects || math.Abs(*ps[0].MDE-0.268586) > 1e-6 {
		t.Fatalf("power %+v", ps)
	}
	r.Comparisons[0].N = 1
	ps, _ = r.power(rules[:1])
	if ps[0].MDE != nil || ps[0].Protects {
		t.Errorf("one query: %+v", ps[0])
	}
	if _, err := r.power([]Rule{{Metric: "nDCG@10", Slice: "tag:none"}}); err == nil {
		t.Error("an unknown slice is accepted")
	}
}
