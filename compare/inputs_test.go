package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/metric"
)

func TestAlign(t *testing.T) {
	base := &Side{Name: "a", Metrics: []string{"R@10", "AP"}, Queries: []string{"q1", "q2", "q3"},
		Values: [][]float64{{1, 2, 3}, {4, 5, 6}}}
	cand := &Side{Name: "b", Metrics: []string{"AP"}, Queries: []string{"q3", "q1"},
		Values: [][]float64{{60, 40}}}
	table, notes := align([]*Side{base, cand})
	if !slices.Equal(table.Metrics, []string{"AP"}) || !slices.Equal(table.Queries, []string{"q1", "q3"}) {
		t.Fatalf("table on %v x %v", table.Metrics, table.Queries)
	}
	if got := table.Systems[1].Values[0]; !slices.Equal(got, []float64{40, 60}) {
		t.Errorf("candidate values %v, want them in the base's query order", got)
	}
	if len(notes) != 1 || notes[0] != "a: 1 queries not in every input left out: q2" {
		t.Errorf("notes %v", notes)
	}
}

func TestCheck(t *testing.T) {
	m := func(gain metric.Gain) *eval.Manifest {
		return &eval.Manifest{Policy: eval.Policy{Gain: gain}, Metrics: []string{"AP"}}
	}
	sides := []*Side{{Name: "a", Manifest: m(metric.Exp)}, {Name: "b", Manifest: m(metric.Linear)}}
	if _, err := check(m(metric.Exp), sides, nil, nil); err == nil || !strings.Contains(err.Error(), "a vs b: policy.gain differs") ||
		!strings.Contains(err.Error(), "allow one field at a time with allow_mismatch FIELD") {
		t.Fatalf("got %v", err)
	}
	notes, err := check(m(metric.Exp), sides, []string{"policy.gain"}, nil)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "allowed mismatch (allow_mismatch policy.gain)") {
		t.Fatalf("allowed: %v %v", notes, err)
	}
	upper := func(o string) string { return strings.ToUpper(o) }
	if notes, _ := check(m(metric.Exp), sides, []string{"policy.gain"}, upper); len(notes) != 1 ||
		!strings.HasPrefix(notes[0], "allowed mismatch (ALLOW_MISMATCH policy.gain): a vs b") {
		t.Errorf("named: %v", notes)
	}
}

// A metric whose summary is a sum or a geometric mean is refused: compare
// reports differences of means.
func TestFromResultRefusesOtherSummaries(t *testing.T) {
	for _, name := range []string{"num_ret", "gm_map"} {
		ms, err := metric.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = FromResult(&eval.Result{Name: "r", Metrics: ms}, "r.json")
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
