package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
)

// fixture is 40 queries: the candidate gains about 0.1 on the 30 queries of
// slice tag:a and loses 0.2 on the 10 of tag:b, so the whole set improves
// while tag:b regresses; tag:c has 3 queries, too few to test.
func fixture() (*Table, Options) {
	t := &Table{Metrics: []string{"nDCG@10", "R@10"}}
	base := System{Name: "base", Values: make([][]float64, 2)}
	cand := System{Name: "cand", Values: make([][]float64, 2)}
	var a, b, c []int
	for q := range 40 {
		t.Queries = append(t.Queries, fmt.Sprintf("q%02d", q))
		t.Text = append(t.Text, fmt.Sprintf("question %d", q))
		v := 0.3 + 0.01*float64(q%7)
		d := 0.1 + 0.02*float64(q%3-1)
		if q >= 30 {
			b, d = append(b, q), -0.2
		} else {
			a = append(a, q)
		}
		if q < 3 {
			c = append(c, q)
		}
		for m := range 2 {
			base.Values[m] = append(base.Values[m], v)
			cand.Values[m] = append(cand.Values[m], v+d/float64(m+1))
		}
		rk := Ranking{Relevant: []Item{{ID: "d1", Rank: 1 + q%4, Grade: 3, Judged: true}, {ID: "d2", Grade: 1, Judged: true}}}
		base.Rankings = append(base.Rankings, rk)
		cand.Rankings = append(cand.Rankings, rk)
	}
	t.Systems = []System{base, cand}
	opt := Options{Stats: stats.Options{Seed: 7, Resamples: 2000, Randomizations: 2000}, Top: 3,
		Slices: []topics.Slice{{Name: "tag:a", Queries: a}, {Name: "tag:b", Queries: b}, {Name: "tag:c", Queries: c}}}
	return t, opt
}

func compareFixture(t *testing.T) *Result {
	t.Helper()
	tab, opt := fixture()
	r, err := Compare(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	r.Manifest = &eval.Manifest{Kind: eval.KindCompare, Version: "test", Metrics: tab.Metrics,
		Policy: eval.DefaultPolicy()}
	return r
}

func TestCompare(t *testing.T) {
	r := compareFixture(t)
	c := r.Comparison("cand", "nDCG@10")
	if c == nil || c.N != 40 || c.Wins != 30 || c.Losses != 10 || c.PAdjusted == nil {
		t.Fatalf("whole set = %+v", c)
	}
	if d := c.MeanDiff; d < 0.024 || d > 0.026 {
		t.Errorf("mean difference %v, want 0.025", d)
	}
	if !(c.CILow < c.MeanDiff && c.MeanDiff < c.CIHigh) {
		t.Errorf("interval [%v, %v] misses the mean difference %v", c.CILow, c.CIHigh, c.MeanDiff)
	}
	small := r.Slice("tag:c")
	if small == nil || !small.TooSmall || small.N != 3 || small.Comparisons[0].PAdjusted != nil {
		t.Errorf("tag:c = %+v, want marked too small and untested", small)
	}
	if b := r.Slice("tag:b").Comparisons[0]; !b.Regressed() {
		t.Errorf("tag:b = %+v, want a significant regression", b)
	}
	if len(r.Alerts) != 2 || !strings.Contains(r.Alerts[0].Message, "tag:b") || !strings.Contains(r.Alerts[0].Message, "IMPROVES") {
		t.Errorf("alerts = %+v, want tag:b regressing while the whole set improves, for both metrics", r.Alerts)
	}
	x := r.Extremes[0]
	if len(x.Regressions) != 3 || x.Regressions[0].Query != "q30" || len(x.Improvements) != 3 {
		t.Errorf("extremes = %+v", x)
	}
}

func TestCompareErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Table)
		want   string
	}{
		{"one system", func(t *Table) { t.Systems = t.Systems[:1] }, "at least one candidate"},
		{"short values", func(t *Table) { t.Systems[1].Values[1] = t.Systems[1].Values[1][:5] }, `"cand", R@10: 5 values for 40 queries`},
		{"text", func(t *Table) { t.Text = t.Text[:1] }, "1 query texts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, opt := fixture()
			tt.change(tab)
			if _, err := Compare(tab, opt); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestGate(t *testing.T) {
	r := compareFixture(t)
	tests := []struct {
		rules   []string
		sig     bool
		slices  []string
		reasons int
		err     string
	}{
		{rules: []string{"nDCG@10 < -0.01"}},
		{rules: []string{"ndcg@10 < 0.1"}, reasons: 1},
		{rules: []string{"nDCG@10[tag:b] <= -0.1", "R@10 >= 0"}, reasons: 2},
		{sig: true},
		{sig: true, slices: []string{"tag:b"}, reasons: 2},
		{sig: true, slices: []string{"tag:c"}},
		{rules: []string{"P@5 < 0"}, err: "no metric P@5"},
		{rules: []string{"R@10[tag:z] < 0"}, err: `no slice "tag:z"`},
	}
	for _, tt := range tests {
		var rules []Rule
		for _, s := range tt.rules {
			rule, err := ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			rules = append(rules, rule)
		}
		reasons, err := r.gate(rules, tt.sig, tt.slices)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want %q", tt.rules, err, tt.err)
			}
			continue
		}
		if err != nil || len(reasons) != tt.reasons {
			t.Errorf("%v sig=%v %v: reasons %q, error %v; want %d reasons", tt.rules, tt.sig, tt.slices, reasons, err, tt.reasons)
		}
	}
}

func TestParseRule(t *testing.T) {
	for _, s := range []string{"nDCG@10", "nDCG@10 < x", "< 0.1", "nDCG@10 = 0", "nDCG@10[ < 0"} {
		if _, err := ParseRule(s); err == nil {
			t.Errorf("ParseRule(%q) accepted", s)
		}
	}
	r, err := ParseRule(" R@100[tag:legal]<=-0.02 ")
	if err != nil || r.Metric != "R@100" || r.Slice != "tag:legal" || r.Op != "<=" || r.Threshold != -0.02 {
		t.Errorf("ParseRule = %+v, %v", r, err)
	}
}

// BenchmarkCompare times a compare run at the size it must handle in under
// 2 s: 10,000 queries × 8 metrics × 4 candidates, 10,000 bootstrap resamples
// and 10,000 sign vectors, with the largest moves listed.
// benchTable is 10,000 queries x 8 metrics for a base and 4 candidates.
func benchTable() *Table {
	const queries, metrics, candidates = 10000, 8, 4
	rng := rand.New(rand.NewPCG(1, 2))
	t := &Table{}
	for q := range queries {
		t.Queries = append(t.Queries, fmt.Sprintf("q%d", q))
	}
	for m := range metrics {
		t.Metrics = append(t.Metrics, fmt.Sprintf("m%d", m))
	}
	for s := range candidates + 1 {
		sys := System{Name: fmt.Sprintf("s%d", s)}
		for range metrics {
			v := make([]float64, queries)
			for i := range v {
				v[i] = rng.Float64()
			}
			sys.Values = append(sys.Values, v)
		}
		t.Systems = append(t.Systems, sys)
	}
	return t
}

func BenchmarkCompare(b *testing.B) {
	t := benchTable()
	for b.Loop() {
		if _, err := Compare(t, Options{Stats: stats.Options{Seed: 1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSignalsAgree: a slice whose interval lies below zero but whose
// corrected p is not significant raises no alert, and the note says the
// two disagree; a significant regression raises one.
func TestSignalsAgree(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	cmp := func(diff, lo, hi, adj float64, sig bool) Comparison {
		return Comparison{Candidate: "B", Metric: "RR@10", Stat: Stat{MeanDiff: diff, CILow: lo, CIHigh: hi, PAdjusted: p(adj), Significant: sig}}
	}
	r := &Result{Settings: Settings{Level: 0.95}, Comparisons: []Comparison{cmp(-0.01, -0.05, 0.03, 0.6, false)},
		Slices: []SliceResult{
			{Name: "tag:x", N: 12, Comparisons: []Comparison{cmp(-0.3, -0.5, -0.1, 0.25, false)}},
			{Name: "tag:y", N: 12, Comparisons: []Comparison{cmp(-0.2, -0.3, -0.1, 0.01, true)}},
			{Name: "tag:z", N: 3, TooSmall: true, Comparisons: []Comparison{cmp(-0.2, -0.3, -0.1, 1, false)}},
		}}
	alerts := r.alerts()
	if len(alerts) != 1 || alerts[0].Slice != "tag:y" {
		t.Errorf("alerts %+v, want one, for tag:y", alerts)
	}
	notes := r.disagreements()
	want := "the interval and the corrected test disagree on 1 comparison(s); significance, alerts and the gate follow the corrected test " +
		"(an interval is not corrected for the number of comparisons): B RR@10 (slice tag:x) CI [-0.5000, -0.1000], p adj 0.2500 not significant"
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q\nwant %q", notes, want)
	}
}

// An undefined d_z is null in JSON, never an infinity; earlier results
// that wrote "+Inf" still read.
func TestUndefinedEffectSize(t *testing.T) {
	for _, f := range []Float{Float(math.Inf(1)), Float(math.NaN())} {
		b, err := f.MarshalJSON()
		if err != nil || string(b) != "null" {
			t.Errorf("%v: JSON %s (%v)", float64(f), b, err)
		}
	}
	var f Float
	if err := f.UnmarshalJSON([]byte(`"+Inf"`)); err != nil || !math.IsInf(float64(f), 1) {
		t.Errorf("reading \"+Inf\": %v, %v", f, err)
	}
	if err := f.UnmarshalJSON([]byte(`null`)); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf("reading null: %v, %v", f, err)
	}
}
