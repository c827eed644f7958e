package metric

import (
	"math"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/trecmath"
)

// compute parses name and scores l under p.
func compute(t *testing.T, name string, l *List, p Policy) float64 {
	t.Helper()
	ms, err := Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	return ms[0].Compute(l, p)
}

// TestNewMetricsByHand checks every metric added beside the source
// document's against values worked out by hand from their formulas.
func TestNewMetricsByHand(t *testing.T) {
	// Relevant at ranks 2 (grade 3), 4 (1) and 6 (2); a hole at rank 3; R = 4.
	l := NewList([]int32{0, 3, Unjudged, 1, 0, 2}, []int32{3, 2, 2, 1, 0, 0})
	p := Policy{MinGrade: 1, Gain: Exp, MaxGrade: 3}
	log3 := math.Log2(3)
	e := trecmath.InfAPEpsilon
	tests := []struct {
		name string
		want float64
	}{
		{"DCG@3", 7 / log3},
		{"DCG", 7/log3 + 1/math.Log2(5) + 3/math.Log2(7)},
		{"ndcg_cut.3", (3 / log3) / (3 + 2/log3 + 1)},
		{"SetR", 3.0 / 4},
		{"set_recall", 3.0 / 4},
		{"SetF", 2 * 0.5 * 0.75 / (0.5 + 0.75)},
		{"SetF(beta=0.5)", 1.25 * 0.5 * 0.75 / (0.25*0.5 + 0.75)},
		{"set_F", 2 * 0.5 * 0.75 / (0.5 + 0.75)},
		{"set_F.0.5", 1.5 * 0.5 * 0.75 / (0.5*0.5 + 0.75)},
		{"F1@4", 0.5},
		{"f1@4", 0.5},
		{"hits@4", 2},
		// ERR: R(g) = (2^g-1)/8; ranks 2, 4, 6 with R = 7/8, 1/8, 3/8.
		{"ERR", 7.0/8/2 + (1.0/8)*(1.0/8)/4 + (1.0/8)*(7.0/8)*(3.0/8)/6},
		{"ERR@2", 7.0 / 8 / 2},
		{"RBP(p=0.5)", 0.5 * (0.5 + 0.125 + 0.03125)},
		{"RBP-resid(p=0.5)", 0.5*0.25 + math.Pow(0.5, 6)},
		{"rbp_resid.p=0.5", 0.5*0.25 + math.Pow(0.5, 6)},
		// trec_eval's rbp is graded: gain g/3 on the scale of the query's grades.
		{"rbp.p=0.5", 0.5 * (1*0.5 + (1.0/3)*0.125 + (2.0/3)*0.03125)},
		// infAP: 1/2 + 1/2*(1/1)*(e/(1+2e)), then 1/4 + 3/4*(2/3)*((1+e)/(2+2e)),
		// then 1/6 + 5/6*(4/5)*((2+e)/(4+2e)); over R = 4.
		{"infAP", (0.5 + 0.5*(e/(1+2*e)) + 0.25 + 0.5*((1+e)/(2+2*e)) + 1.0/6 + (2.0/3)*((2+e)/(4+2*e))) / 4},
		// Precision is 1/2 at each relevant rank; 3 of R = 4 are found.
		{"iprec_at_recall.0.5", 0.5},
		{"iprec_at_recall.0.0", 0.5},
		{"iprec_at_recall.1.0", 0},
		// Levels 0.0-0.8 need at most 3 found items (round(x*4) <= 3), 0.9 and 1.0 need 4.
		{"11pt_avg", 9 * 0.5 / 11},
	}
	for _, tc := range tests {
		if got := compute(t, tc.name, l, p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", tc.name, got, tc.want)
		}
	}
}

// Negative grades mark items pooled but not judged (trec_eval): bpref
// ignores them, above an item and in N.
func TestBprefIgnoresNegativeGrades(t *testing.T) {
	l := NewList([]int32{3, -1, 0, 1}, []int32{3, 1, 0, 0, -1})
	// R = 2, N = 2: rank 1 has nothing above (1); rank 4 has one judged
	// non-relevant item above: 1 - 1/2.
	if got := compute(t, "bpref", l, Policy{MinGrade: 1}); got != 0.75 {
		t.Errorf("bpref = %v, want 0.75", got)
	}
}

// nDCG names carry their tool's gain.
func TestGainsByName(t *testing.T) {
	l := NewList([]int32{1, 3}, []int32{3, 1})
	log3 := math.Log2(3)
	p := Policy{MinGrade: 2, Gain: Exp}
	tests := []struct {
		name string
		want float64
	}{
		{"nDCG@2", (1 + 7/log3) / (7 + 1/log3)},     // ragstat, --gain exp
		{"ndcg_cut.2", (1 + 3/log3) / (3 + 1/log3)}, // trec_eval: linear, whatever --gain says
		{"ndcg", (1 + 3/log3) / (3 + 1/log3)},       // trec_eval, whole list
		{"ndcg_burges@2", (7 / log3) / 7},           // ranx: 2^g-1, grades below min-grade 2 gain nothing
		{"nDCG(gains={1:5,3:1})@2", 1},              // a map that reverses the grades: the ideal follows the gains
		{"ndcg.1=5,3=1", 1},                         // the same in trec_eval's syntax
		{"ndcg.3=0", (1) / (1)},                     // grade 3 gains nothing; grade 1 keeps gain 1
		{"DCG(gains={1:2})@2", 2 + 3/log3},          // an unlisted positive grade gains itself, as in trec_eval
		{"dcg_burges@2", 7 / log3},                  // ranx
	}
	for _, tc := range tests {
		if got := compute(t, tc.name, l, p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", tc.name, got, tc.want)
		}
	}
	ms, err := ParseLike("ndcg@2", "ranx")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ms[0].Compute(l, p), (3/log3)/3; ms[0].Origin != Ranx || math.Abs(got-want) > 1e-12 {
		t.Errorf("ndcg@2 under ranx = %v (%s), want %v", got, ms[0].Origin, want)
	}
}

// Judged@k divides by k, or by min(k, |list|) as ir_measures does.
func TestJudgedDivisor(t *testing.T) {
	l := NewList([]int32{0, Unjudged}, []int32{1, 0})
	if got := compute(t, "Judged@4", l, Policy{MinGrade: 1}); got != 0.25 {
		t.Errorf("Judged@4 by k = %v, want 1/4", got)
	}
	if got := compute(t, "Judged@4", l, Policy{MinGrade: 1, JudgedOfList: true}); got != 0.5 {
		t.Errorf("Judged@4 by list = %v, want 1/2", got)
	}
}

// ERR stays finite on any scale.
func TestERRHugeScale(t *testing.T) {
	l := NewList([]int32{2000, 1}, []int32{2000, 1})
	got := compute(t, "ERR", l, Policy{MinGrade: 1, MaxGrade: 2000})
	if math.IsNaN(got) || math.IsInf(got, 0) || math.Abs(got-1) > 1e-12 {
		t.Errorf("ERR = %v, want 1 (the top grade stops the user at rank 1)", got)
	}
}

// Every family has a definition and says how a borrowed name differs.
func TestFamiliesDocumented(t *testing.T) {
	for _, f := range Families {
		if f.Formula == "" || f.compute == nil {
			t.Errorf("%s: no formula or no arithmetic", f.Name)
		}
		if f.Origin != Ragstat && f.Differs == "" {
			t.Errorf("%s (%s): does not say how it differs from ragstat's metric", f.Name, f.Origin)
		}
	}
}

// The diversity metrics over subtopic judgments, worked by hand: a is
// relevant to subtopic 0, b to both, c to 1; the list is a, c, b.
func TestDiversityByHand(t *testing.T) {
	a, b, c := []Aspect{{0, 1}}, []Aspect{{0, 1}, {1, 1}}, []Aspect{{1, 1}}
	l := NewList([]int32{1, 1, 1}, []int32{1, 1, 1})
	l.Aspects = &Aspects{N: 2, Ranked: [][]Aspect{a, c, b}, Judged: [][]Aspect{a, b, c}}
	p := Policy{MinGrade: 1, MaxGrade: 1}
	log3 := math.Log2(3)
	// alpha-DCG: 1 + 1/log2(3) + (0.5 + 0.5)/2; the greedy ideal takes b (2),
	// then a (0.5), then c (0.5): 2 + 0.5/log2(3) + 0.5/2.
	dcg, ideal := 1+1/log3+0.5, 2+0.5/log3+0.25
	// ERR-IA: R = 1/2 for every relevant grade; subtopic 0 is met at ranks 1
	// and 3, subtopic 1 at ranks 2 and 3.
	errIA := ((0.5 + 0.5*0.5/3) + (0.5/2 + 0.5*0.5/3)) / 2
	tests := []struct {
		name string
		want float64
	}{
		{"alpha-nDCG@3", dcg / ideal},
		{"alpha-nDCG", dcg / ideal},
		{"alpha-nDCG(alpha=0)@1", 1.0 / 2},
		{"ERR-IA@3", errIA},
		{"ERR-IA@1", 0.5 / 2},
	}
	for _, tc := range tests {
		if got := compute(t, tc.name, l, p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", tc.name, got, tc.want)
		}
	}
}

// Every column's definition says what it used.
func TestDefinition(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
		want string
	}{
		{"nDCG@10", Policy{Gain: Exp}, "nDCG@10 = ragstat nDCG (gain 2^g-1)"},
		{"nDCG@10", Policy{Gain: Linear}, "nDCG@10 = ragstat nDCG (gain g)"},
		{"ndcg_cut.10", Policy{Gain: Exp}, "ndcg_cut_10 = trec_eval ndcg_cut: nDCG@k with linear gain (g) whatever gain says"},
		{"ndcg.1=1,2=3", Policy{}, "ndcg_1=1,2=3 = trec_eval ndcg (gains={1:1,2:3})"},
		{"Judged@5", Policy{}, "Judged@5 = ragstat Judged (divided by k, even for a shorter list)"},
		{"Judged@5", Policy{JudgedOfList: true}, "Judged@5 = ragstat Judged (divided by min(k, |list|), as ir_measures)"},
	}
	for _, tc := range tests {
		ms, err := Parse(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := ms[0].Definition(tc.p, nil); !strings.HasPrefix(got, tc.want) {
			t.Errorf("Definition(%s) = %q, want it to start %q", tc.name, got, tc.want)
		}
	}
}
