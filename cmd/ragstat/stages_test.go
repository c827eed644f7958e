package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/collect"
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

// TestStagesEmit: --emit writes the evaluations of raw captured spans back
// onto them, as any output is written (never over an existing file without
// --force), and says how many; imported traces are needed for the span ids,
// so native traces' evaluations are counted as left out.
func TestStagesEmit(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "scores.jsonl")
	args := []string{"stages", "-j", "internal/evalemit/testdata/judgments.jsonl", "--topics", "internal/evalemit/testdata/topics.jsonl",
		"--abstain-pattern", "cannot answer", "--unknown-metadata", "allow", "../../traceimport/testdata/langchain-langfuse.otlp.jsonl"}
	_, errs, code := ragstat(t, "", append(args, "--emit", "langfuse", "--emit-out", out)...)
	if code != 0 || !strings.Contains(errs, "wrote 27 evaluations (langfuse) to "+out) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil || strings.Count(string(data), "\n") != 27 || !strings.Contains(string(data), `"observationId":"4c34cce44a477d1c"`) {
		t.Fatalf("%v:\n%s", err, data)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--emit", "langfuse", "--emit-out", out}, "the file exists"},
		{[]string{"--emit", "langfuse"}, "--emit goes with --emit-out or --emit-endpoint"},
		{[]string{"--emit-out", filepath.Join(dir, "x")}, "--emit goes with --emit-out or --emit-endpoint"},
		{[]string{"--emit", "phoenix", "--emit-out", filepath.Join(dir, "y")}, `--emit: unknown evaluation format "phoenix"`},
		{[]string{"--emit", "otlp", "--emit-out", "internal/evalemit/testdata/topics.jsonl", "--force"}, "is the same file as the input"},
		{[]string{"--emit", "langfuse", "--emit-endpoint", "http://127.0.0.1:1/v1/logs"}, "--emit langfuse is not an OTLP form"},
		{[]string{"--emit", "langfuse", "--emit-out", filepath.Join(dir, "z"), "--emit-resource", "openinference.project.name=rag"}, "--emit-resource applies to the OTLP forms of --emit"},
	} {
		if _, errs, code := ragstat(t, "", append(args, tc.args...)...); code != exitInput || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, errs)
		}
	}
	// Native traces record no span ids.
	native := filepath.Join(dir, "native.jsonl")
	_, errs, code = ragstat(t, "", "stages", "-j", "testdata/import/judgments.jsonl", "--topics", "testdata/import/topics.jsonl",
		"--queries", "run", "--unknown-metadata", "allow", "--emit", "otlp", "--emit-out", native, "testdata/import/context-only.jsonl")
	if code != 0 || !regexp.MustCompile(`wrote 0 evaluations \(otlp\) to .*; \d+ left out: no span id recorded`).MatchString(errs) {
		t.Errorf("native traces: exit %d, %s", code, errs)
	}
}

// TestStagesEmitEndpoint: the spans captured from LlamaIndex.TS and
// OpenLLMetry, received by collect, imported, evaluated and posted to a
// loopback collector: every record it receives names a span of the
// capture.
func TestStagesEmitEndpoint(t *testing.T) {
	const capture = "../../traceimport/testdata/llamaindex-openllmetry.otlp.jsonl"
	dir := t.TempDir()
	spansFile, traces := filepath.Join(dir, "spans.otlp.jsonl"), filepath.Join(dir, "traces.jsonl")
	sink, err := collect.Create(spansFile, collect.New)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	receiver, err := collect.NewServer(ln, sink, collect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- receiver.Serve(ctx) }()
	data, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	spans := map[[2]string]bool{}
	for l := range strings.Lines(string(data)) {
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalJSON([]byte(l)); err != nil {
			t.Fatal(err)
		}
		rs := req.Traces().ResourceSpans()
		for i := range rs.Len() {
			for j := range rs.At(i).ScopeSpans().Len() {
				sp := rs.At(i).ScopeSpans().At(j).Spans()
				for k := range sp.Len() {
					spans[[2]string{sp.At(k).TraceID().String(), sp.At(k).SpanID().String()}] = true
				}
			}
		}
		resp, err := http.Post(receiver.Endpoint()+"/v1/traces", "application/json", strings.NewReader(l))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("collect answered %s", resp.Status)
		}
	}
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := ragstat(t, "", "import", "otlp", spansFile, "--abstain-pattern", "cannot answer", "--stage", "pack.task=-", "--out", traces); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	var mu sync.Mutex
	var records, linked int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req := plogotlp.NewExportRequest()
		if r.URL.Path != "/v1/logs" || req.UnmarshalJSON(b) != nil {
			http.Error(w, "not an OTLP logs request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		lrs := req.Logs().ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
		for i := range lrs.Len() {
			records++
			if spans[[2]string{lrs.At(i).TraceID().String(), lrs.At(i).SpanID().String()}] {
				linked++
			}
		}
	}))
	defer srv.Close()
	_, errs, code := ragstat(t, "", "stages", "-j", "internal/evalemit/testdata/judgments.jsonl", "--topics", "internal/evalemit/testdata/topics.jsonl",
		"--emit", "otlp", "--emit-endpoint", srv.URL+"/v1/logs", traces)
	if code != 0 || !strings.Contains(errs, "wrote 31 evaluations (otlp); "+srv.URL+"/v1/logs accepted 2 requests") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if records != 31 || linked != records {
		t.Errorf("the collector received %d records, %d of them naming a span of the capture", records, linked)
	}
	_, errs, code = ragstat(t, "", "stages", "-j", "internal/evalemit/testdata/judgments.jsonl", "--topics", "internal/evalemit/testdata/topics.jsonl",
		"--emit", "otlp", "--emit-endpoint", srv.URL+"/v1/traces", traces)
	if code != exitInternal || !strings.Contains(errs, srv.URL+"/v1/traces: evalemit: request 1: 400 Bad Request: not an OTLP logs request") {
		t.Errorf("a refused request: exit %d, %s", code, errs)
	}
}
