package stages

import (
	"fmt"
	"strings"
	"testing"
)

// TestTurnsMerge: the means by conversation turn, worked out by hand, and
// the same from two shards merged. Turn 1: q1 (relevant a, b; r returns
// a: R 1/2) and q2 (relevant c; r returns c: R 1), mean R 0.75; turn 2:
// q3 (relevant d; r returns e: R 0).
func TestTurnsMerge(t *testing.T) {
	qrels := `{"query":"q1","item":"a","grade":2}
{"query":"q1","item":"b","grade":1}
{"query":"q2","item":"c","grade":1}
{"query":"q3","item":"d","grade":1}
{"query":"q3","item":"e","grade":0}`
	tops := `{"id":"q1","text":"one"}
{"id":"q2","text":"two"}
{"id":"q3","text":"three"}`
	traces := []string{
		`{"query":"q1","system":"s","conversation":"c1","turn":1,"stages":[{"name":"r","items":[{"id":"a"}]}]}`,
		`{"query":"q2","system":"s","conversation":"c2","turn":1,"stages":[{"name":"r","items":[{"id":"c"}]}]}`,
		`{"query":"q3","system":"s","conversation":"c1","turn":2,"stages":[{"name":"r","items":[{"id":"e"}]}]}`,
	}
	in, ts := fixture(t, qrels, tops, "", traces...)
	opt := options("R")
	whole, err := Evaluate(in, ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	describeTurns := func(r *Result) string {
		var b strings.Builder
		for _, tu := range r.Systems[0].Turns {
			fmt.Fprintf(&b, "turn %d: %d traces, %d scored, R %.4f; ", tu.Turn, tu.Traces, tu.Scored, *tu.Stages[0].Values[0].Value)
		}
		return b.String()
	}
	want := "turn 1: 2 traces, 2 scored, R 0.7500; turn 2: 1 traces, 1 scored, R 0.0000; "
	if got := describeTurns(whole); got != want {
		t.Fatalf("turns %q, want %q", got, want)
	}
	var parts []*Result
	for _, keep := range []map[string]bool{{"q1": true, "q3": true}, {"q2": true}} {
		o := opt
		o.Shard = func(q string) bool { return keep[q] }
		part, err := Evaluate(in, ts, o)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
	}
	order := map[string]int{"q1": 1, "q2": 2, "q3": 3}
	merged, err := Merge(parts, func(q string) (int, bool) { n, ok := order[q]; return n, ok })
	if err != nil {
		t.Fatal(err)
	}
	if got := describeTurns(merged); got != want {
		t.Errorf("merged turns %q, want %q", got, want)
	}
}
