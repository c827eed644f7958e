package stages

import (
	"fmt"
	"slices"
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
	merged := evaluateSharded(t, in, ts, opt, []string{"q1", "q3"}, []string{"q2"})
	if got := describeTurns(merged); got != want {
		t.Errorf("merged turns %q, want %q", got, want)
	}
}

// evaluateSharded evaluates in as one shard a list of queries and merges
// the parts, the queries ordered by their ids.
func evaluateSharded(t *testing.T, in Input, ts Traces, opt Options, shards ...[]string) *Result {
	t.Helper()
	var parts []*Result
	var all []string
	for _, keep := range shards {
		o := opt
		o.Shard = func(q string) bool { return slices.Contains(keep, q) }
		part, err := Evaluate(in, ts, o)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
		all = append(all, keep...)
	}
	slices.Sort(all)
	merged, err := Merge(parts, func(q string) (int, bool) { n, ok := slices.BinarySearch(all, q); return n, ok })
	if err != nil {
		t.Fatal(err)
	}
	return merged
}
