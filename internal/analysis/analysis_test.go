package analysis

import (
	"math"
	"slices"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCalibrate(t *testing.T) {
	j := func(s float64, g int) Scored { return Scored{Score: s, Grade: g, Judged: true} }
	lists := []List{
		{Query: "q1", Items: []Scored{j(0.9, 3), j(0.8, 0), j(0.4, 1)}},
		{Query: "q2", Items: []Scored{j(0.7, 2), j(0.2, 0), {Score: 0.1}}},
		{Query: "q3", Items: []Scored{{Score: 0.05}}},
	}
	// Two bins over [0.2, 0.9]: {0.4 rel, 0.2} and {0.9 rel, 0.8, 0.7 rel}.
	c, err := Calibrate(lists, 1, 2, Target{Precision: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if c.Judged != 5 || c.Bins[0].Count != 2 || c.Bins[1].Count != 3 || !near(c.Bins[0].MeanScore, 0.3) ||
		!near(c.Bins[0].Relevant, 0.5) || !near(c.Bins[1].MeanScore, 0.8) || !near(c.Bins[1].Relevant, 2.0/3) {
		t.Errorf("bins %+v", c.Bins)
	}
	// ECE = 2/5·|0.3-0.5| + 3/5·|0.8-2/3| = 0.08 + 0.08.
	if !c.Probabilistic || !near(c.ECE, 0.16) {
		t.Errorf("ECE %v", c.ECE)
	}
	// Precision over the cuts 0.9, 0.8, 0.7, 0.4, 0.2: 1, .5, .67, .75, .6:
	// the lowest cut keeping 0.75 is 0.4; q3 (unjudged only) is left empty.
	if !c.ThresholdOK || c.Threshold != 0.4 || !near(c.Precision, 0.75) || !near(c.Recall, 1) || c.EmptyQueries != 1 {
		t.Errorf("precision target: %+v", c)
	}
	c, _ = Calibrate(lists, 1, 2, Target{Recall: 0.5})
	if c.Threshold != 0.7 || !near(c.Recall, 2.0/3) || !near(c.Precision, 2.0/3) || c.EmptyQueries != 1 {
		t.Errorf("recall target: %+v", c)
	}
	c, _ = Calibrate(lists, 1, 2, Target{Precision: 1, Recall: 1})
	if c.ThresholdOK {
		t.Errorf("an unreachable target is met: %+v", c)
	}
	// Scores outside [0, 1] (a cross-encoder's logits) have no ECE.
	c, _ = Calibrate([]List{{Query: "q", Items: []Scored{j(12, 1), j(-3, 0)}}}, 1, 4, Target{})
	if c.Probabilistic || !math.IsNaN(c.ECE) || c.ThresholdOK {
		t.Errorf("logits: %+v", c)
	}
	for _, bad := range []struct {
		bins   int
		target Target
		lists  []List
	}{
		{0, Target{}, lists},
		{2, Target{Precision: 1.5}, lists},
		{2, Target{}, []List{{Query: "q", Items: []Scored{j(math.NaN(), 1)}}}},
	} {
		if _, err := Calibrate(bad.lists, 1, bad.bins, bad.target); err == nil {
			t.Errorf("no error for %+v", bad)
		}
	}
}

func TestRedundant(t *testing.T) {
	ps := []Passage{
		{ID: "a", Doc: "policy", Text: "Refund policy. Return within 30 days.", Tokens: 10, Relevant: true},
		{ID: "b", Doc: "policy", Text: "refund policy: return within 30 days", Tokens: 10, Relevant: true},
		{ID: "c", Doc: "shipping", Text: "Shipping takes 3 to 5 days.", Tokens: 6},
		{ID: "d", Doc: "faq", Text: "Refund policy: return within 30 days of delivery", Tokens: 14, Relevant: true},
	}
	r, err := Redundant(ps, 2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// a and b are the same words; d adds two bigrams to a's five: 5/7.
	want := []Duplicate{{"a", "b", 1, true}, {"a", "d", 5.0 / 7, false}, {"b", "d", 5.0 / 7, false}}
	if len(r.Duplicates) != len(want) {
		t.Fatalf("duplicates %+v", r.Duplicates)
	}
	for i, d := range want {
		if g := r.Duplicates[i]; g.First != d.First || g.Second != d.Second || !near(g.Jaccard, d.Jaccard) || g.Exact != d.Exact {
			t.Errorf("duplicate %d: %+v, want %+v", i, g, d)
		}
	}
	if r.RepeatTokens != 24 || !near(r.RepeatShare, 24.0/40) || r.UniqueRelevant != 1 {
		t.Errorf("repeats %d (%v), unique relevant %d", r.RepeatTokens, r.RepeatShare, r.UniqueRelevant)
	}
	if !slices.Equal(r.DocShare, []Share{{"policy", 0.5}, {"shipping", 6.0 / 40}, {"faq", 14.0 / 40}}) {
		t.Errorf("document shares %v", r.DocShare)
	}
	// Passages whose text is unknown duplicate nothing, not each other.
	if r, _ := Redundant([]Passage{{ID: "x", Tokens: 3}, {ID: "y", Tokens: 3}, {ID: "z", Text: "…", Tokens: 1}}, 2, 0.5); len(r.Duplicates) != 0 || r.RepeatTokens != 0 {
		t.Errorf("texts unknown: %+v", r)
	}
	if _, err := Redundant(ps, 0, 0.5); err == nil {
		t.Error("no error for 0-word shingles")
	}
}

func TestPositions(t *testing.T) {
	ps := []Passage{{ID: "a", Tokens: 10, Relevant: true}, {ID: "b", Tokens: 20}, {ID: "c", Tokens: 30, Relevant: true}}
	got := Positions("q", ps)
	want := []Placement{{"q", "a", 1, 0, "begin"}, {"q", "c", 3, 0.5, "middle"}}
	if !slices.Equal(got, want) {
		t.Errorf("placements %+v", got)
	}
	got = append(got, Placement{Query: "r", Item: "x", Rank: 5, Offset: 0.9, Bucket: "end"}, Placement{Query: "s", Bucket: "end"})
	eff := Effects(got, map[string]bool{"q": true, "r": false})
	if eff[0] != (PositionEffect{"begin", 1, 1, 1}) || eff[1] != (PositionEffect{"middle", 1, 1, 1}) || eff[2] != (PositionEffect{"end", 2, 1, 0}) {
		t.Errorf("effects %+v", eff)
	}
}

func TestResolve(t *testing.T) {
	// sd = √(0.05/3); (t_.975 + t_.8 on 3 df) · sd / √4.
	r, err := Resolve([]float64{0.1, -0.1, 0.2, 0}, 0.05, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	if !near(r.SD, 0.12909944487358055) || math.Abs(r.MDE-0.26858614185122354) > 1e-6 {
		t.Errorf("resolution %+v", r)
	}
	if r.Protects(0.01) || !r.Protects(0.3) {
		t.Errorf("a 0.01 gate protects, or a 0.3 gate does not (MDE %v)", r.MDE)
	}
	if r, _ := Resolve([]float64{0.1}, 0.05, 0.8); !math.IsNaN(r.MDE) || r.Protects(1) {
		t.Errorf("one query: %+v", r)
	}
	if _, err := Resolve(nil, 0, 0.8); err == nil {
		t.Error("alpha 0 accepted")
	}
}

func TestFrontierAndCost(t *testing.T) {
	ps := []Point{
		{"cheap", 0.5, 0.001, 200},
		{"good", 0.8, 0.01, 900},
		{"worse", 0.7, 0.02, 950}, // beaten by good on all three
		{"fast", 0.6, 0.005, 100},
	}
	if got := Frontier(ps); !slices.Equal(got, []string{"cheap", "good", "fast"}) {
		t.Errorf("frontier %v", got)
	}
	if got := BeatenBy(ps, 2); !slices.Equal(got, []string{"good"}) {
		t.Errorf("worse beaten by %v", got)
	}
	if twin := append(ps, ps[1]); !slices.Equal(Frontier(twin), []string{"cheap", "good", "fast", "good"}) {
		t.Errorf("two systems alike are not both on the frontier: %v", Frontier(twin))
	}
	if c := (Cost{Input: 2.5, Output: 10}); !near(c.Of(1000, 200), 0.0045) {
		t.Errorf("cost %v", c.Of(1000, 200))
	}
	got := Stalest([]Reach{{"old#1", 3, 0}, {"old#2", 1, 1}, {"old#0", 3, 0}})
	if !slices.Equal(got, []Reach{{"old#2", 1, 1}, {"old#0", 3, 0}, {"old#1", 3, 0}}) {
		t.Errorf("stalest %v", got)
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{"": {}, "precision=0.9": {Precision: 0.9}, "recall=0.8": {Recall: 0.8},
		"precision=0.9,recall=0.5": {Precision: 0.9, Recall: 0.5}} {
		if got, err := ParseTarget(in); err != nil || got != want {
			t.Errorf("%q: %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"precision", "precision=0", "recall=1.5", "f1=0.5", "precision=NaN"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
