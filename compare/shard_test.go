package compare

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/topics"
)

// TestMergeRefusesBrokenParts checks that parts a merge cannot use are
// errors, not panics.
func TestMergeRefusesBrokenParts(t *testing.T) {
	m := &eval.Manifest{Kind: eval.KindCompare}
	side := func(input int, name string, q ...string) partialSide {
		var pos []int
		var vs []float64
		for i := range q {
			pos, vs = append(pos, i), append(vs, 0.5)
		}
		return partialSide{Input: input, Name: name, Manifest: m, Metrics: []string{"R@10"}, Queries: q, Positions: pos, Values: [][]float64{vs}}
	}
	one, two := []bool{false}, []bool{false, false}
	for _, tc := range []struct {
		name  string
		parts []*partial
		want  string
	}{
		{"no systems", []*partial{{}}, "a base and at least one candidate"},
		{"one system", []*partial{{Inputs: one, Sides: []partialSide{side(0, "a", "q1")}}}, "a base and at least one candidate"},
		{"no manifest", []*partial{{Inputs: two, Sides: []partialSide{{Name: "a"}, side(1, "b")}}}, "has no manifest"},
		{"input past the inputs", []*partial{{Inputs: one, Sides: []partialSide{side(0, "a", "q1"), side(1, "b", "q1")}}}, "traces in one and not in another"},
		{"traced in one part only", []*partial{{Inputs: two, Sides: []partialSide{side(0, "a", "q1"), side(1, "b", "q1")}}, {Inputs: []bool{false, true}}}, "traces in one and not in another"},
		{"systems differ", []*partial{{Inputs: two, Sides: []partialSide{side(0, "a", "q1"), side(1, "b", "q1")}}, {Inputs: two, Sides: []partialSide{side(0, "a", "q2"), {Input: 1, Name: "b", Manifest: m, Metrics: []string{"nDCG@10"}}}}}, "not one system"},
		{"counts differ", []*partial{{Inputs: two, Sides: []partialSide{side(0, "a", "q1"), side(1, "b", "q1")}}, {Inputs: one, Sides: []partialSide{side(0, "a", "q2")}}}, "compare 2 and 1 inputs"},
		{"values short", []*partial{{Inputs: two, Sides: []partialSide{side(0, "a", "q1"), {Input: 1, Name: "b", Manifest: m, Metrics: []string{"R@10"}, Queries: []string{"q1"}, Positions: []int{0}, Values: [][]float64{{}}}}}}, "0 values for 1 queries"},
		{"null topic", []*partial{{Inputs: two, Sides: []partialSide{side(0, "a", "q1"), side(1, "b", "q1")}, Topics: &partialTopics{Topics: []*topics.Topic{nil}}}}, "null topic"},
	} {
		var parts []*Result
		for _, p := range tc.parts {
			parts = append(parts, &Result{Manifest: m, Partial: p})
		}
		if _, _, err := Merge(parts, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
