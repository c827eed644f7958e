package htmlreport

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/stats"
)

// external finds anything a page could fetch: a URL other than the SVG
// namespace, a linked stylesheet or a script source.
var external = regexp.MustCompile(`https?://(?:[^w]|w[^w]|ww[^w]|www\.[^w])|<link|\ssrc=`)

// checkPage reports each of wants that page lacks, and anything the page
// would fetch from outside itself.
func checkPage(t *testing.T, page string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("page refers outside itself: %q", m)
	}
}

func TestCompare(t *testing.T) {
	tab := &compare.Table{Queries: []string{"a", "b", "c"}, Metrics: []string{"nDCG@10"}, Text: []string{"<script>x</script>", "", ""},
		Systems: []compare.System{{Name: "base", Values: [][]float64{{0.5, 0.2, 0.9}}}, {Name: "cand", Values: [][]float64{{0.1, 0.4, 0.9}}}}}
	r, err := compare.Compare(tab, compare.Options{Stats: stats.Options{Seed: 1, Resamples: 100}})
	if err != nil {
		t.Fatal(err)
	}
	r.Manifest = &eval.Manifest{Kind: eval.KindCompare, Judgments: &eval.FileRecord{Role: "judgments", Path: "q.txt", SHA256: "abc"}}
	r.Notes = append(r.Notes, "a note said once")
	var b bytes.Buffer
	if err := Compare(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkPage(t, page, `id="summary-table"`, `<path class="neg"`, "&lt;script&gt;x&lt;/script&gt;", "q.txt", "ranking not kept", "-0.4000")
	if n := strings.Count(page, "a note said once"); n != 1 {
		t.Errorf("the note is printed %d times", n)
	}
}

// evalPage renders the demo's evaluation, changed by edit, as saved JSON
// and as the page made from it.
func evalPage(t *testing.T, edit func(*report.Eval)) (doc, page string) {
	t.Helper()
	r, err := demo.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	var d, p bytes.Buffer
	if err := report.Render(&d, "json", r); err != nil {
		t.Fatal(err)
	}
	saved, err := report.Read(input.FromBytes("eval.json", d.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := Eval(&p, saved); err != nil {
		t.Fatal(err)
	}
	return d.String(), p.String()
}

func TestEval(t *testing.T) {
	_, page := evalPage(t, func(*report.Eval) {})
	checkPage(t, page, `id="query-table"`, "restore", "0.8541", "<svg")
}

// An undefined mean (no query evaluated) round-trips through JSON as null
// and shows as "-", never NaN, in the page and its chart.
func TestEvalUndefinedMean(t *testing.T) {
	doc, page := evalPage(t, func(r *report.Eval) { r.Results[0].Mean[0] = math.NaN() })
	if i := strings.Index(page, ">NaN"); i >= 0 {
		t.Errorf("page shows NaN: %s", page[max(0, i-200):i+50])
	}
	if !strings.Contains(doc, "null") {
		t.Errorf("the undefined mean is not null in JSON")
	}
}

// TestGradeClass: the shading follows the policy's scale and threshold,
// not a fixed 0..3.
func TestGradeClass(t *testing.T) {
	policy := func(min, max, threshold int) eval.Policy {
		p := eval.DefaultPolicy()
		p.Scale.Min, p.Scale.Max, p.MinGrade = min, max, threshold
		return p
	}
	tests := []struct {
		p    eval.Policy
		want []string // for grades Scale.Min..Scale.Max
	}{
		{eval.DefaultPolicy(), []string{"g0", "g1", "g2", "g3"}},
		{policy(0, 1, 1), []string{"g0", "g3"}},
		{policy(0, 4, 2), []string{"g0", "g0", "g1", "g2", "g3"}},
		{policy(-2, 6, 1), []string{"g0", "g0", "g0", "g1", "g1", "g2", "g2", "g3", "g3"}},
	}
	for _, tt := range tests {
		class := gradeClass(tt.p)
		var got []string
		for g := tt.p.Scale.Min; g <= tt.p.Scale.Max; g++ {
			got = append(got, class(compare.Item{Grade: g, Judged: true}))
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s: %v, want %v", tt.p, got, tt.want)
		}
	}
	if c := gradeClass(eval.DefaultPolicy())(compare.Item{}); c != "g-unjudged" {
		t.Errorf("an unjudged item is %s", c)
	}
}

// TestCompareFrontierAndGatePower renders the frontier's table and plots
// and the gate's power from the values the result holds.
func TestCompareFrontierAndGatePower(t *testing.T) {
	tab := &compare.Table{Queries: []string{"a", "b"}, Metrics: []string{"context/R@10"},
		Systems: []compare.System{{Name: "v1", Values: [][]float64{{0.5, 0.2}}}, {Name: "v2", Values: [][]float64{{0.1, 0.4}}}}}
	r, err := compare.Compare(tab, compare.Options{Stats: stats.Options{Seed: 1, Resamples: 100}})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2, l1, l2, mde := 0.0003, 0.0002, 834.25, 985.5, 1.3
	r.Frontier = &compare.Frontier{Metric: "context/R@10", Queries: 2, Costed: true, Timed: true, PriceIn: 2.5, PriceOut: 10, Tokenizer: "o200k_base",
		Systems: []compare.FrontierSystem{
			{System: "v1", Quality: 0.35, CostPerQuery: &c1, CostQueries: 3, P90Latency: &l1, Timed: 3, OnFrontier: true},
			{System: "v2", Quality: 0.25, CostPerQuery: &c2, CostQueries: 3, P90Latency: &l2, Timed: 3, BeatenBy: []string{"v1"}}}}
	r.GatePower = []compare.GatePower{{Rule: "context/R@10 < -0.01", Candidate: "v2", Metric: "context/R@10", Queries: 2, Threshold: -0.01, MDE: &mde, Power: 0.8}}
	var b bytes.Buffer
	if err := Compare(&b, r); err != nil {
		t.Fatal(err)
	}
	checkPage(t, b.String(),
		"<tr><td>v1</td><td>0.3500</td><td>0.000300</td><td>834.2</td><td>*</td></tr>",
		"<tr><td>v2</td><td>0.2500</td><td>0.000200</td><td>985.5</td><td>beaten by v1</td></tr>",
		`aria-label="quality vs cost per query"`, `aria-label="quality vs p90 latency (ms)"`,
		`<circle class="pos" cx="244.00"`, // v1: the dearest, on the frontier
		`<circle class="same"`,            // v2: beaten
		"quality (context/R@10)",
		"a system beats another when it is at least as good on quality, cost and p90 latency, and strictly better on one",
		`<tr class="bad"><td>context/R@10 &lt; -0.01</td><td>v2</td><td>all</td><td>2</td><td>-0.01</td><td>1.3000</td>`,
		"80% power",
	)
}

// TestCompareOpensOnAMove: the title names the systems, and the chart
// opens on the first metric whose queries moved, not on one whose
// differences are all zero.
func TestCompareOpensOnAMove(t *testing.T) {
	tab := &compare.Table{Queries: []string{"a", "b", "c"}, Metrics: []string{"R@10", "nDCG@10"},
		Systems: []compare.System{{Name: "v1", Values: [][]float64{{1, 1, 0.5}, {0.5, 0.2, 0.9}}},
			{Name: "v2", Values: [][]float64{{1, 1, 0.5}, {0.1, 0.4, 0.9}}}}}
	r, err := compare.Compare(tab, compare.Options{Stats: stats.Options{Seed: 1, Resamples: 100}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Compare(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkPage(t, page, "<title>ragstat compare: v1 vs v2</title>", `<option value="p1" selected>v2, nDCG@10</option>`,
		`<div class="panel" id="p0" hidden>`, `<div class="panel" id="p1">`)
}
