package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStagesCommand(t *testing.T) {
	dir := filepath.Join(exampleDir(t), "pipeline")
	t.Chdir(dir)
	args := []string{"stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--tokenizer", "o200k_base", "--k", "candidates=4", "traces-v1.jsonl", "traces-v2.jsonl"}
	for _, format := range []string{"table", "json"} {
		out, errs, code := ragstat(t, "", append(args, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		golden(t, "stages."+format+".golden", strings.ReplaceAll(out, Version, "VERSION"))
	}
	// With --per-query-out, every trace's record goes to the file and the
	// table, holding sums only, prints what it printed.
	recs := filepath.Join(t.TempDir(), "records.jsonl")
	out, errs, code := ragstat(t, "", append(args, "--per-query-out", recs)...)
	want, _ := os.ReadFile(filepath.Join(testdataDir, "stages.table.golden"))
	data, err := os.ReadFile(recs)
	if code != 0 || strings.ReplaceAll(out, Version, "VERSION") != string(want) || err != nil || strings.Count(string(data), "\n") != 8 ||
		!strings.Contains(string(data), `"system":"v2","query":"refund-window"`) {
		t.Errorf("--per-query-out: exit %d, %s, %d records, %v", code, errs, strings.Count(string(data), "\n"), err)
	}
	if _, errs, code := ragstat(t, "", append(args, "--per-query-out", recs)...); code != exitInput || !strings.Contains(errs, "--force") {
		t.Errorf("existing --per-query-out: exit %d, %s", code, errs)
	}
	js, _, _ := ragstat(t, "", append(args, "--format", "json")...)
	page, errs, code := ragstat(t, js, "report", "-")
	if code != 0 || !strings.Contains(page, "<svg") || !strings.Contains(page, "sha256") {
		t.Errorf("report of a stages result: exit %d, %s", code, errs)
	}
	// An input from standard input is hashed for the manifest from its copy.
	topics, _ := os.ReadFile("topics.jsonl")
	stdin := []string{"stages", "-j", "judgments.jsonl", "--topics", "-", "--corpus", "corpus.jsonl", "-f", "json", "traces-v1.jsonl"}
	if out, errs, code := ragstat(t, string(topics), stdin...); code != 0 || !strings.Contains(out, `"path": "-"`) {
		t.Errorf("topics on stdin: exit %d, %s", code, errs)
	}
	_, errs, code = ragstat(t, "", append(args, "--fail-on-violation")...)
	if code != exitGate || !strings.Contains(errs, "system v1: 3 out-of-scope appearance(s), 1 in the context") {
		t.Errorf("--fail-on-violation: exit %d, %s", code, errs)
	}
	_, errs, code = ragstat(t, "", "stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "-k", "10", "traces-v1.jsonl")
	if code != exitInput || !strings.Contains(errs, "--k NAME=K") {
		t.Errorf("plain -k: exit %d, %s", code, errs)
	}
}

func TestTokensCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	os.WriteFile(path, []byte("hello world\n   \n"), 0o644)
	out, errs, code := ragstat(t, "tokens", "tokens", "--tokenizer", "cl100k_base", path, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// "\n   \n" is one token in OpenAI's tiktoken: hello, " world", "\n   \n".
	if want := "3\tcl100k_base\t" + path + "\n1\tcl100k_base\t-\n4\tcl100k_base\ttotal\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	// The default tokenizer is named, as --help says.
	if out, _, _ := ragstat(t, "", "tokens", path); out != "3\to200k_base\t"+path+"\n" {
		t.Errorf("default tokenizer: got %q", out)
	}
	if _, errs, code := ragstat(t, "", "tokens", "--tokenizer", "nope", path); code != exitInput || errs == "" {
		t.Errorf("unknown tokenizer: exit %d %q", code, errs)
	}
}

func TestStagesAnalyses(t *testing.T) {
	dir := filepath.Join(exampleDir(t), "pipeline")
	t.Chdir(dir)
	args := []string{"stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--tokenizer", "o200k_base", "--k", "candidates=4", "traces-v1.jsonl", "traces-v2.jsonl",
		"--analyses", "--target", "precision=0.9", "--bins", "3", "--price-in", "2.5", "--price-out", "10"}
	out, errs, code := ragstat(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "stages.analyses.golden", out)
	js, _, _ := ragstat(t, "", append(args, "--format", "json")...)
	if !strings.Contains(js, `"analyses": {`) || !strings.Contains(js, `"stale_reach": [`) {
		t.Errorf("no analyses in the JSON")
	}
	page, errs, code := ragstat(t, js, "report", "-")
	if code != 0 || !strings.Contains(page, "Calibration") {
		t.Errorf("report of a stages result with analyses: exit %d, %s", code, errs)
	}
	for _, bad := range [][]string{
		{"--target", "precision=0.9"},        // without --analyses
		{"--analyses", "--target", "f1=0.5"}, // not a target
		{"--analyses", "--bins", "0"},        // no bins
		{"--analyses", "--jaccard", "0"},     // no threshold
		{"--pass-f1", "0.5"},                 // without --analyses
		{"--analyses", "--pass-f1", "1.5"},   // not an F1
	} {
		a := append([]string{"stages", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl", "traces-v1.jsonl"}, bad...)
		if _, errs, code := ragstat(t, "", a...); code != exitInput {
			t.Errorf("%v: exit %d, %s", bad, code, errs)
		}
	}
}

// TestStagesContextOnly: traces whose only stage is the context say so,
// and evidence missing from the context is "not in the context", never
// "not retrieved": what retrieval found is not known. By hand: refund's
// relevant exceptions#4 and faq#7 are not in the context, policy#2 is;
// clearance's exceptions#4 is not.
func TestStagesContextOnly(t *testing.T) {
	out, errs, code := ragstat(t, "", "stages", "-j", "testdata/import/judgments.jsonl", "--topics", "testdata/import/topics.jsonl",
		"--queries", "run", "--unknown-metadata", "allow", "testdata/import/context-only.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		`note: its traces record only the context stage: what retrieval found is not known, so evidence missing from the context is "not in the context (no retrieval stage recorded)", never "not retrieved"`,
		"not in the context (no retrieval stage recorded)  3",
		"delivered                                         1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not retrieved ") {
		t.Errorf("a context-only trace reports evidence as not retrieved:\n%s", out)
	}
}

// TestStagesSearchSteps: an agent's three sibling retrieval calls
// (captured from a Go service traced with the OpenTelemetry SDK's GenAI
// spans) are one search step, reported call by call. By hand, q2's
// relevant items are p2 (grade 2) and p1 (1): call 1 returns p2 p6 (p2
// new and relevant: recall 1/2), call 2 p3 p2 (p2 again: 1 duplicate,
// recall 1/2), call 3 p1 p3 (p1 new and relevant, p3 again: recall 1);
// the first relevant item comes at call 1; the union p2 p6 p3 p1 holds
// both relevant items, both packed, and the answer cites p2 alone.
func TestStagesSearchSteps(t *testing.T) {
	out, errs, code := ragstat(t, "", "stages", "-j", "testdata/agent/judgments.jsonl", "--topics", "testdata/agent/topics.jsonl",
		"--corpus", "testdata/agent/corpus.jsonl", "--query-id", "app.query_id", "testdata/agent/agent.otlp.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `
Search steps (calls of one search, not stages):
  query q2, retrieval kb: 3 calls, 2 relevant judged
    call 1 "clearance items refund": 2 items, 2 new (1 relevant), 0 duplicates; recall so far 0.5000
    call 2 "refund policy 2024": 2 items, 1 new (0 relevant), 1 duplicates; recall so far 0.5000
    call 3 "refund window days": 2 items, 1 new (1 relevant), 1 duplicates; recall so far 1.0000
    first relevant at call 1; union 4 items (2 duplicate returns), 2 relevant; in the context 2 (2 relevant); cited 1 (1 relevant)
`
	if !strings.Contains(out, want) {
		t.Errorf("output lacks%s\n%s", want, out)
	}
	if !strings.Contains(errs, "note: 1 search step of sibling retrieval calls (one stage, not one a call): retrieval kb (3 calls)") {
		t.Errorf("summary lacks the search step:\n%s", errs)
	}
}

// TestStagesTurns: stages gives each stage's means by conversation turn
// (stages.TestTurnsMerge merges shards of them). By hand (min grade 1): turn 1 holds
// refund (relevant exceptions#4, policy#2, faq#7; r returns the first
// two: R 2/3, RR 1) and the unanswerable limits (not scored); turn 2
// holds clearance (relevant exceptions#4; r returns policy#2: R 0, RR 0).
func TestStagesTurns(t *testing.T) {
	args := []string{"stages", "-j", "testdata/import/judgments.jsonl", "--topics", "testdata/import/topics.jsonl",
		"--unknown-metadata", "allow", "testdata/import/turns.jsonl"}
	out, errs, code := ragstat(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `
By conversation turn (each stage's means over the turn's scored traces):
  turn 1: 2 traces, 1 scored
    r: R 0.6667, RR 1.0000, nDCG `
	if !strings.Contains(out, want) || !strings.Contains(out, "  turn 2: 1 traces, 1 scored\n    r: R 0.0000, RR 0.0000, nDCG 0.0000\n") {
		t.Errorf("output lacks the turns:\n%s", out)
	}
}
