package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
)

// --queries both keeps the queries on both sides and lists the others.
func TestQueriesBoth(t *testing.T) {
	p := DefaultPolicy()
	p.Queries = QueriesBoth
	res, err := runText(t, evaluator(t, sharedtest.Qrels, p, "R@10"), "refund Q0 policy 1 3 t\nother Q0 x 1 1 t\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Query != "refund" || strings.Join(res.Ignored, ",") != "limits,other" {
		t.Fatalf("rows %+v ignored %v", res.Rows, res.Ignored)
	}
}

// --unanswerable zero scores a query without a relevant judgment (0 where
// a measure divides by nothing) and keeps it in the mean.
func TestUnanswerableZero(t *testing.T) {
	qrels := sharedtest.Qrels + "empty 0 nothing 0\nempty 0 near 1\n"
	run := "refund Q0 policy 1 3 t\nlimits Q0 limit 1 3 t\nempty Q0 near 1 1 t\n"
	p := DefaultPolicy()
	p.Unanswerable, p.MinGrade, p.Gain = UnanswerableZero, 2, metric.Linear
	res, err := runText(t, evaluator(t, qrels, p, "R@10", "AP", "bpref", "ndcg_cut.10"), run)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || strings.Join(res.ScoredUnanswerable, ",") != "empty" || len(res.Excluded) != 0 {
		t.Fatalf("rows %d, scored %v, excluded %v", len(res.Rows), res.ScoredUnanswerable, res.Excluded)
	}
	empty := res.Rows[2]
	// Nothing reaches grade 2: recall, AP and bpref are 0; nDCG reads the
	// grade-1 item it found at rank 1, as trec_eval's does.
	if empty.Values[0] != 0 || empty.Values[1] != 0 || empty.Values[2] != 0 || empty.Values[3] != 1 {
		t.Fatalf("empty query scored %v", empty.Values)
	}
	// refund: policy at rank 1 of {policy, exception} (grade >= 2): R 1/2.
	if !near(res.Mean[0], (0.5+0.5+0)/3) {
		t.Errorf("mean R@10 %v, want (1/2 + 1/2 + 0) / 3", res.Mean[0])
	}
}

// Judged-only evaluation removes unjudged items and those with a negative
// grade (pooled, not judged), as trec_eval -J does.
func TestSkipDropsNegativeGrades(t *testing.T) {
	qrels := "q 0 a 1\nq 0 pooled -1\nq 0 b 0\n"
	p := DefaultPolicy()
	p.Scale = judgments.Scale{Min: -1, Max: 3}
	p.Unjudged = UnjudgedSkip
	res, err := runText(t, evaluator(t, qrels, p, "P@2", "NumRet"), "q Q0 pooled 1 3 t\nq Q0 hole 2 2 t\nq Q0 a 3 1 t\n")
	if err != nil {
		t.Fatal(err)
	}
	if row := res.Rows[0]; row.Values[0] != 0.5 || row.Values[1] != 1 || row.Unjudged != 1 {
		t.Fatalf("P@2, NumRet = %v, unjudged %d; want 1/2 and 1 (only a is left)", row.Values, row.Unjudged)
	}
}

// A mean over no query is undefined, never 0.
func TestMeanOverNothing(t *testing.T) {
	qrels := "q 0 x 0\n"
	p := DefaultPolicy()
	p.Unanswerable = UnanswerableExclude
	res, err := runText(t, evaluator(t, qrels, p, "R@10", "num_ret"), "q Q0 x 1 1 t\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || !math.IsNaN(res.Mean[0]) || !math.IsNaN(res.Mean[1]) {
		t.Fatalf("rows %d, mean %v: want no rows and undefined means", len(res.Rows), res.Mean)
	}
}

// trec_eval's num_* sum over queries; gm_map is a geometric mean.
func TestAggregates(t *testing.T) {
	p := DefaultPolicy()
	res, err := runText(t, evaluator(t, sharedtest.Qrels, p, "num_ret", "NumRet", "gm_map", "map"),
		"refund Q0 policy 1 3 t\nrefund Q0 noise 2 2 t\nlimits Q0 noise 1 3 t\nlimits Q0 scope 2 2 t\nlimits Q0 limit 3 1 t\n")
	if err != nil {
		t.Fatal(err)
	}
	// AP: refund 1/3 (1 of 3 relevant at rank 1); limits (1/2 + 2/3) / 2.
	ap := []float64{1.0 / 3, (0.5 + 2.0/3) / 2}
	want := []float64{5, 2.5, math.Sqrt(ap[0] * ap[1]), (ap[0] + ap[1]) / 2}
	for i, w := range want {
		if !near(res.Mean[i], w) {
			t.Errorf("%s summary %v, want %v", res.Metrics[i].Name(), res.Mean[i], w)
		}
	}
}

// Exponential gain over a scale where 2^g-1 overflows is refused up front.
func TestExpGainOverflowRefused(t *testing.T) {
	p := DefaultPolicy()
	p.Scale = judgments.Scale{Min: 0, Max: 2000}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "largest usable grade 1000") || !strings.Contains(err.Error(), "use gain linear") {
		t.Fatalf("got %v", err)
	}
	p.Gain = metric.Linear
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Gain, p.Scale.Max = metric.Exp, maxExpGrade
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}

// Invalid evidence leaves the ideal ranking and the denominators: the
// source document's rule for out-of-scope and stale items.
func TestScoreGradesInvalid(t *testing.T) {
	// Five positives; two of them (grades 3 and 1) are not acceptable
	// evidence for this request. The list holds the three valid ones.
	qrels := "q 0 a 2\nq 0 b 2\nq 0 c 1\nq 0 forbidden 3\nq 0 stale 1\nq 0 n 0\n"
	e := evaluator(t, qrels, DefaultPolicy(), "R", "nDCG")
	valid := e.ScoreGrades(e.Judgments().Query("q"), []int32{2, 2, 1}, []int32{3, 1})
	if valid.Values[0] != 1 || !near(valid.Values[1], 1) {
		t.Errorf("without the invalid judgments: R %v nDCG %v, want 1 and 1", valid.Values[0], valid.Values[1])
	}
	all := e.scoreRow("q", []int32{2, 2, 1})
	if !near(all.Values[0], 3.0/5) {
		t.Errorf("with every judgment: R %v, want 3/5", all.Values[0])
	}
}

// The preset and the divisor travel through the policy's text and JSON,
// and are left out of both at their defaults.
func TestPolicyTextWithPreset(t *testing.T) {
	p := DefaultPolicy()
	if _, err := p.SetLike("ir_measures"); err != nil {
		t.Fatal(err)
	}
	text := p.String()
	if !strings.HasSuffix(text, ", judged-divisor list, like ir_measures") {
		t.Errorf("String = %q", text)
	}
	back, err := ParsePolicy(text)
	if err != nil || back != p {
		t.Fatalf("ParsePolicy(%q) = %+v, %v; want %+v", text, back, err, p)
	}
	if d := DefaultPolicy().String(); strings.Contains(d, "judged-divisor") || strings.Contains(d, "like") {
		t.Errorf("default policy text %q names defaults it need not", d)
	}
	if _, err := p.SetLike("trec-eval"); err == nil || !strings.Contains(err.Error(), "trec_eval, pytrec_eval, ir_measures, ranx") {
		t.Errorf("unknown preset: %v", err)
	}
}

// alpha-nDCG and ERR-IA read subtopic judgments through the run's items,
// skipped items included (metric's TestDiversityByHand has the numbers).
func TestDiversityFromRuns(t *testing.T) {
	qrels := "q 0 a 1\nq 0 b 1\nq 0 c 1\nq 0 n 0\n"
	div, err := judgments.ReadSubtopics(input.FromBytes("div.qrels", []byte("q 1 a 1\nq 1 b 1\nq 2 b 1\nq 2 c 1\n")), judgments.Scale{})
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultPolicy()
	p.Scale, p.Unjudged = judgments.Scale{Min: 0, Max: 1}, UnjudgedSkip
	e := evaluator(t, qrels, p, "alpha-nDCG@3", "ERR-IA@3")
	if _, err := runText(t, e, "q Q0 a 1 3 t\n"); err == nil || !strings.Contains(err.Error(), "needs subtopic judgments") {
		t.Fatalf("without subtopics: %v", err)
	}
	if err := e.UseSubtopics(div); err != nil {
		t.Fatal(err)
	}
	res, err := runText(t, e, "q Q0 a 1 4 t\nq Q0 hole 2 3 t\nq Q0 c 3 2 t\nq Q0 b 4 1 t\n")
	if err != nil {
		t.Fatal(err)
	}
	log3 := math.Log2(3)
	want := []float64{(1 + 1/log3 + 0.5) / (2 + 0.5/log3 + 0.25), ((0.5 + 0.5*0.5/3) + (0.5/2 + 0.5*0.5/3)) / 2}
	for i, w := range want {
		if !near(res.Mean[i], w) {
			t.Errorf("%s = %v, want %v", res.Metrics[i].Name(), res.Mean[i], w)
		}
	}
	other := evaluator(t, qrels+"r 0 x 1\n", p, "ERR-IA@3")
	if err := other.UseSubtopics(div); err == nil || !strings.Contains(err.Error(), `without subtopic judgments: "r"`) {
		t.Errorf("a query without subtopics: %v", err)
	}
}
