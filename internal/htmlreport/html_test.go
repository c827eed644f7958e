package htmlreport

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/demo"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/stats"
)

// external finds anything a page could fetch: a URL other than the SVG
// namespace, a linked stylesheet or a script source.
var external = regexp.MustCompile(`https?://(?:[^w]|w[^w]|ww[^w]|www\.[^w])|<link|\ssrc=`)

func TestCompare(t *testing.T) {
	tab := &compare.Table{Queries: []string{"a", "b", "c"}, Metrics: []string{"nDCG@10"}, Text: []string{"<script>x</script>", "", ""},
		Systems: []compare.System{{Name: "base", Values: [][]float64{{0.5, 0.2, 0.9}}}, {Name: "cand", Values: [][]float64{{0.1, 0.4, 0.9}}}}}
	r, err := compare.Compare(tab, compare.Options{Stats: stats.Options{Seed: 1, Resamples: 100}})
	if err != nil {
		t.Fatal(err)
	}
	r.Manifest = &manifest.Manifest{Kind: manifest.KindCompare, Judgments: &manifest.File{Role: "judgments", Path: "q.txt", SHA256: "abc"}}
	r.Notes = append(r.Notes, "a note said once")
	var b bytes.Buffer
	if err := Compare(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="summary-table"`, `<path class="neg"`, "&lt;script&gt;x&lt;/script&gt;", "q.txt", "ranking not kept", "-0.4000"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("page refers outside itself: %q", m)
	}
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
	for _, want := range []string{`id="query-table"`, "restore", "0.8541", "<svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
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
