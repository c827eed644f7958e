package assess

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

// records is an in-memory Records.
type records struct {
	grades []Grade
	spans  []Span
}

func (records) Scale() judgments.Scale { return judgments.DefaultScale }

func (r records) Grades(context.Context) ([]Grade, error)  { return r.grades, nil }
func (r records) AllSpans(context.Context) ([]Span, error) { return r.spans, nil }

func g(who, q, item string, grade int, note string) Grade {
	return Grade{Assessor: who, Key: Key{q, item}, Grade: grade, Note: note}
}

var threeAssessors = records{
	grades: []Grade{
		g("ann", "q1", "d1", 3, "clear <answer> & short"), g("bob", "q1", "d1", 2, ""), g("cy", "q1", "d1", 2, ""),
		g("ann", "q1", "d2", 0, ""), g("bob", "q1", "d2", 1, ""), g("cy", "q1", "d2", 3, ""),
		g("ann", "q2", "d1", 1, ""),
	},
	spans: []Span{
		{Assessor: "ann", Key: Key{"q1", "d1"}, Fact: "days", Text: "thirty days"},
		{Assessor: "bob", Key: Key{"q1", "d1"}, Text: "thirty days"},
		{Assessor: "bob", Key: Key{"q1", "d1"}, Fact: "who", Text: "the shop pays"},
		{Assessor: "ann", Key: Key{"q9", "d9"}, Text: "never graded"},
	},
}

func export(t *testing.T, r Records, opt ExportOptions) string {
	t.Helper()
	var b strings.Builder
	if _, err := Export(context.Background(), r, &b, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestExportSelects(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		opt  ExportOptions
		want string
	}{
		{ExportOptions{Format: "trec"}, "3 assessors graded (ann, bob, cy): choose one with --assessor NAME or merge them with --merge majority|max|min"},
		{ExportOptions{Format: "trec", Assessor: "dan"}, `no grades by "dan"; the assessors are ann, bob, cy`},
		{ExportOptions{Format: "trec", Assessor: "ann", Merge: "max"}, "give --assessor or --merge, not both"},
		{ExportOptions{Format: "trec", Merge: "mean"}, `unknown merge "mean"`},
		{ExportOptions{Format: "csv", Assessor: "ann"}, `unknown export format "csv"`},
	} {
		if _, err := Export(ctx, threeAssessors, &strings.Builder{}, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.opt, err)
		}
	}
	if _, err := Export(ctx, records{}, &strings.Builder{}, ExportOptions{Format: "trec"}); err == nil || !strings.Contains(err.Error(), "no grades") {
		t.Errorf("empty: %v", err)
	}
	for merge, want := range map[string]string{
		MergeMajority: "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n", // d2: 0, 1, 3 tie: the lowest
		MergeMax:      "q1 0 d1 3\nq1 0 d2 3\nq2 0 d1 1\n",
		MergeMin:      "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n",
	} {
		if got := export(t, threeAssessors, ExportOptions{Format: "trec", Merge: merge}); got != want {
			t.Errorf("merge %s:\n%s", merge, got)
		}
	}
	if got := export(t, threeAssessors, ExportOptions{Format: "trec", Assessor: "bob"}); got != "q1 0 d1 2\nq1 0 d2 1\n" {
		t.Errorf("bob:\n%s", got)
	}
}

func TestExportJSONLReadsBack(t *testing.T) {
	got := export(t, threeAssessors, ExportOptions{Format: "jsonl", Merge: MergeMajority})
	first := strings.SplitN(got, "\n", 2)[0]
	want := `{"query":"q1","item":"d1","grade":2,"spans":["thirty days","the shop pays"],"facts":["days","who"],"meta":{"assessors":{"ann":3,"bob":2,"cy":2},"notes":{"ann":"clear <answer> & short"},"fact_spans":{"days":["thirty days"],"who":["the shop pays"]}}}`
	if first != want {
		t.Errorf("first line\n got %s\nwant %s", first, want)
	}
	set, err := judgments.Read(input.FromBytes("export.jsonl", []byte(got)), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if q := set.Query("q1"); q == nil || len(q.Spans("d1")) != 2 {
		t.Errorf("spans did not survive the judgments reader")
	}
	if g, _ := set.Query("q1").Grade("d2"); g != 0 || set.Len() != 3 {
		t.Errorf("read back %d judgments, d2 %d", set.Len(), g)
	}
	trec := export(t, threeAssessors, ExportOptions{Format: "trec", Assessor: "ann"})
	if set, err := judgments.Read(input.FromBytes("export.qrels", []byte(trec)), judgments.Options{}); err != nil || set.Len() != 3 {
		t.Errorf("trec export read back: %v", err)
	}
	if _, err := Export(context.Background(), records{grades: []Grade{g("ann", "a query", "d", 1, "")}}, &strings.Builder{}, ExportOptions{Format: "trec"}); err == nil {
		t.Error("an id with a space written as TREC")
	}
}

func grades(who string, gs ...int) []Grade {
	var out []Grade
	for i, x := range gs {
		out = append(out, g(who, "q", string(rune('a'+i)), x, ""))
	}
	return out
}

func TestKappa(t *testing.T) {
	// Two categories: weighted kappa is Cohen's kappa; the textbook table
	// 20/5/10/15 gives 0.4.
	var a, b []int
	for _, c := range []struct{ x, y, n int }{{1, 1, 20}, {1, 0, 5}, {0, 1, 10}, {0, 0, 15}} {
		for range c.n {
			a, b = append(a, c.x), append(b, c.y)
		}
	}
	for _, w := range []Weights{Quadratic, Linear} {
		p := agreement(t, append(grades("ann", a...), grades("bob", b...)...), judgments.DefaultScale, w)
		if len(p) != 1 || math.Abs(p[0].Kappa-0.4) > 1e-12 || p[0].N != 50 || p[0].Agree != 35 || p[0].Matrix[1][0] != 5 {
			t.Errorf("%s: %+v", w, p)
		}
	}
	// By hand: A 0 1 2 3, B 0 1 3 3: quadratic 1 - (1/36)/(1/3) = 11/12,
	// linear 1 - (1/12)/(22/48) = 9/11.
	gs := append(grades("ann", 0, 1, 2, 3), grades("bob", 0, 1, 3, 3)...)
	if k := agreement(t, gs, judgments.DefaultScale, Quadratic)[0].Kappa; math.Abs(k-11.0/12) > 1e-12 {
		t.Errorf("quadratic %v", k)
	}
	if k := agreement(t, gs, judgments.DefaultScale, Linear)[0].Kappa; math.Abs(k-9.0/11) > 1e-12 {
		t.Errorf("linear %v", k)
	}
	if k := agreement(t, append(grades("ann", 2, 2), grades("bob", 2, 2)...), judgments.DefaultScale, Quadratic)[0].Kappa; !math.IsNaN(k) {
		t.Errorf("one grade only: %v", k)
	}
	var out strings.Builder
	WriteAgreement(&out, agreement(t, append(gs, g("cy", "other", "x", 1, "")), judgments.DefaultScale, Quadratic), judgments.DefaultScale, Quadratic)
	for _, want := range []string{"quadratic weights w(i,j) = (i-j)²/9", "ann vs bob: 4 pairs graded by both, exact agreement 0.7500, kappa 0.9167",
		"  ann=2       0      0      0      1", "ann vs cy: no pair graded by both"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("agreement lacks %q:\n%s", want, out.String())
		}
	}
}

func agreement(t *testing.T, gs []Grade, s judgments.Scale, w Weights) []Pair {
	t.Helper()
	p, err := Agreement(gs, s, w)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKappaOnScale(t *testing.T) {
	// By hand on 0..4: A 0 1 2 3 4, B 0 2 2 4 4. Observed: two pairs one
	// grade apart. Expected: A uniform, B 0:1/5 2:2/5 4:2/5, so
	// Σ p·p·(i-j)² = 6/5 + 4/5 + 12/5 = 22/5 and Σ p·p·|i-j| = 42/25.
	// Quadratic: 1 - (2/5/16)/(22/5/16) = 10/11; linear: 1 - (2/5/4)/(42/25/4) = 16/21.
	s := judgments.Scale{Min: 0, Max: 4}
	gs := append(grades("ann", 0, 1, 2, 3, 4), grades("bob", 0, 2, 2, 4, 4)...)
	for w, want := range map[Weights]float64{Quadratic: 10.0 / 11, Linear: 16.0 / 21} {
		p := agreement(t, gs, s, w)
		if math.Abs(p[0].Kappa-want) > 1e-12 || len(p[0].Matrix) != 5 || p[0].Matrix[3][4] != 1 || p[0].Matrix[4][4] != 1 {
			t.Errorf("%s: kappa %v, want %v; matrix %v", w, p[0].Kappa, want, p[0].Matrix)
		}
	}
	var out strings.Builder
	WriteAgreement(&out, agreement(t, gs, s, Quadratic), s, Quadratic)
	for _, want := range []string{"(i-j)²/16, grades 0..4", "kappa 0.9091", "  ann=4       0      0      0      0      1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("agreement lacks %q:\n%s", want, out.String())
		}
	}
	// A negative scale is indexed from its lowest grade.
	neg := judgments.Scale{Min: -2, Max: 1}
	p := agreement(t, append(grades("ann", -2, 1), grades("bob", -2, 0)...), neg, Linear)
	if p[0].Matrix[0][0] != 1 || p[0].Matrix[3][2] != 1 {
		t.Errorf("on %s: %v", neg, p[0].Matrix)
	}
	// A grade off the scale is an error, not a panic.
	if _, err := Agreement(grades("ann", 5), s, Quadratic); err == nil || !strings.Contains(err.Error(), "outside the scale 0..4") {
		t.Errorf("off-scale grade: %v", err)
	}
}

func TestExported(t *testing.T) {
	for _, c := range []struct {
		n     int
		scale judgments.Scale
		want  string
	}{
		{3, judgments.DefaultScale, "exported 3 judgments"},
		{2, judgments.Scale{Min: 0, Max: 1}, "exported 2 judgments on grades 0..1: evaluate them with --grades 0..1"},
	} {
		if got := Exported(c.n, c.scale); got != c.want {
			t.Errorf("Exported(%d, %v) = %q, want %q", c.n, c.scale, got, c.want)
		}
	}
}
