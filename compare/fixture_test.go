package compare_test

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/internal/comparetest"
	"github.com/ragstat/ragstat/stats"
)

func TestCompare(t *testing.T) {
	r := comparetest.Result(t)
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
		change func(*compare.Table)
		want   string
	}{
		{"one system", func(t *compare.Table) { t.Systems = t.Systems[:1] }, "at least one candidate"},
		{"short values", func(t *compare.Table) { t.Systems[1].Values[1] = t.Systems[1].Values[1][:5] }, `"cand", R@10: 5 values for 40 queries`},
		{"text", func(t *compare.Table) { t.Text = t.Text[:1] }, "1 query texts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, opt := comparetest.Fixture()
			tt.change(tab)
			if _, err := compare.Compare(tab, opt); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestGate(t *testing.T) {
	r := comparetest.Result(t)
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
		var rules []compare.Rule
		for _, s := range tt.rules {
			rule, err := compare.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			rules = append(rules, rule)
		}
		reasons, err := r.Gate(rules, tt.sig, tt.slices)
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

// BenchmarkCompare times a compare run at the size it must handle in under
// 2 s: 10,000 queries × 8 metrics × 4 candidates, 10,000 bootstrap resamples
// and 10,000 sign vectors, with the largest moves listed.
func BenchmarkCompare(b *testing.B) {
	t := comparetest.Large()
	for b.Loop() {
		if _, err := compare.Compare(t, compare.Options{Stats: stats.Options{Seed: 1}}); err != nil {
			b.Fatal(err)
		}
	}
}
