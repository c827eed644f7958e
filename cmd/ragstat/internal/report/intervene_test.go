package report

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/intervene"
)

// TestInterventionIDs: the intervention's table and Markdown print ids and
// the messages that name them (a missing fact, an arm's error, a note, why
// a query was left out) by the rule for ids: hostile ones give the lines
// plain ones give, and no character that is not printable.
func TestInterventionIDs(t *testing.T) {
	result := func(id func(string) string) *Intervention {
		c := intervene.Case{System: id("sys"), Query: id("q1"), Layout: "trace",
			Verified: intervene.VerifiedSet{Items: []intervene.Evidence{{ID: id("d1")}, {ID: id("d2")}}, Missing: []string{"fact " + id("f1") + ": no item"}},
			Original: intervene.Arm{Error: "the endpoint said " + id("no")}, Note: "a note on " + id("d1"), Verdict: intervene.NotRun}
		return &Intervention{Tool: "ragstat", Result: &intervene.Result{Chosen: "failing", Cases: []intervene.Case{c},
			Skipped:  []intervene.Skipped{{Query: id("q2"), System: id("sys"), Why: "no evidence for " + id("q2")}},
			Verdicts: map[intervene.Verdict]int{intervene.NotRun: 1}}}
	}
	hostile := func(s string) string { return s + "\n| x |\t\u202e<b>" }
	for _, format := range []string{"table", "markdown"} {
		var got, want strings.Builder
		if err := RenderIntervention(&got, format, result(hostile)); err != nil {
			t.Fatal(err)
		}
		if err := RenderIntervention(&want, format, result(func(s string) string { return s })); err != nil {
			t.Fatal(err)
		}
		if g, w := strings.Count(got.String(), "\n"), strings.Count(want.String(), "\n"); g != w {
			t.Errorf("%s: %d lines with hostile ids, %d with plain ones:\n%s", format, g, w, got.String())
		}
		if strings.ContainsRune(got.String(), '\u202e') || strings.Contains(got.String(), "\t|") {
			t.Errorf("%s: a format character or a tab printed raw:\n%s", format, got.String())
		}
		if format == "markdown" && (strings.Contains(strings.ReplaceAll(got.String(), `\<`, ""), "<b>") || strings.Contains(got.String(), "| x |")) {
			t.Errorf("markdown: a cell's end or inline HTML printed raw:\n%s", got.String())
		}
	}
}
