package compare

import (
	"math"
	"testing"
)

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
