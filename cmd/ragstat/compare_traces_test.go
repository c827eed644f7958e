package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompareTraces compares the demo's two traced pipelines stage by
// stage, flags that v2 changes several components at once and says which
// queries it left out and why.
func TestCompareTraces(t *testing.T) {
	t.Chdir(filepath.Join(exampleDir(t), "pipeline"))
	out, errs, code := ragstat(t, "", "compare", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--resamples", "1000", "--randomizations", "1000", "traces-v1.jsonl", "traces-v2.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "compare.traces.golden", out)
	for _, w := range []string{
		"config: v2 differs from v1 in packer, permission_filter, reranker, retriever",
		"WARNING: v2 changes 4 components at once",
		"v2         context/facts       0.8333  0.8333  +0.0000",
		"v2         reranked/facts      0.8333  1.0000  +0.1667",
		"# base v1 vs v2 over 3 queries",
		"note: v1: 1 unanswerable queries left out: no ranked-list metric applies; ragstat stages scores their abstention: crypto-refund",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	page, errs, code := ragstat(t, "", "compare", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--resamples", "1000", "--randomizations", "1000", "-f", "html", "traces-v1.jsonl", "traces-v2.jsonl")
	if code != 0 || !strings.Contains(page, `aria-label="where relevant evidence stopped, v2"`) {
		t.Errorf("HTML of a trace comparison lacks the waterfall: exit %d, %s", code, errs)
	}
	// Priced, each system's cost per query beside its quality and p90
	// latency; the frontier in every format.
	priced := []string{"compare", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--resamples", "100", "--randomizations", "100", "--tokenizer", "o200k_base", "--price-in", "2.5", "--price-out", "10"}
	md, errs, code := ragstat(t, "", append(priced, "-f", "markdown", "traces-v1.jsonl", "traces-v2.jsonl")...)
	if code != 0 {
		t.Fatalf("priced: exit %d, %s", code, errs)
	}
	golden(t, "compare.traces.frontier.golden", md)
	js, _, _ := ragstat(t, "", append(priced, "-f", "json", "traces-v1.jsonl", "traces-v2.jsonl")...)
	page, _, _ = ragstat(t, "", append(priced, "-f", "html", "--quality", "context/nDCG@10", "traces-v1.jsonl", "traces-v2.jsonl")...)
	saved, _, _ := ragstat(t, js, "report", "-")
	for _, c := range []struct{ out, want string }{
		{saved, `aria-label="quality vs p90 latency (ms)"`}, // read back from the saved JSON
		{js, `"cost_per_query": 0.00028125`},
		{js, `"on_frontier": true`},
		{page, `aria-label="quality vs cost per query"`},
		{page, `aria-label="quality vs p90 latency (ms)"`},
		{page, `quality is the mean of context/nDCG@10`},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("priced output lacks %q", c.want)
		}
	}
	for _, bad := range []struct {
		args []string
		says string
	}{
		{append(slices.Clone(priced), "--quality", "nDCG@10"), "not among the compared metrics"},
		{slices.DeleteFunc(slices.Clone(priced), func(a string) bool { return a == "--tokenizer" || a == "o200k_base" }), "needs the generator's tokenizer"},
	} {
		if _, errs, code := ragstat(t, "", append(bad.args, "traces-v1.jsonl", "traces-v2.jsonl")...); code != exitInput || !strings.Contains(errs, bad.says) {
			t.Errorf("%v: exit %d, %s", bad.args, code, errs)
		}
	}
	// Topics from standard input are read once, for the manifest, the traces and the slices.
	topics, _ := os.ReadFile("topics.jsonl")
	if _, errs, code := ragstat(t, string(topics), "compare", "-j", "judgments.jsonl", "--topics", "-", "--corpus", "corpus.jsonl",
		"--resamples", "100", "--randomizations", "100", "traces-v1.jsonl", "traces-v2.jsonl"); code != 0 {
		t.Errorf("topics on stdin: exit %d, %s", code, errs)
	}
	if _, errs, code := ragstat(t, "", "compare", "-j", "judgments.jsonl", "traces-v1.jsonl", "traces-v2.jsonl"); code != exitInput || !strings.Contains(errs, "needs --topics") {
		t.Errorf("traces without topics: exit %d, %s", code, errs)
	}
}
