package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The LangChain.js pipeline of testdata/langchain (see pipeline.mjs and
// data.json), worked out by hand. Query terms (stop words out) and the
// terms of each passage they share:
//
//	q1 {refund, returned, items}: p1 3, p3 3, p4 3, p2 2 (returned, items)
//	q2 {clearance, items, 2024, refunded}: p2 3, p3 3, p1 2, p4 1, p6 1
//	q3 {backup, restore}: p8 1 (p7 says "backups", "restored")
//
// The retriever keeps the top 4 (ties in corpus order); the reranker adds
// the quality prior (p1 1.0, p2 0.5, p3 0.2, p4 0.1) and keeps 3:
//
//	q1: p1 4.0, p3 3.2, p4 3.1, p2 2.5 -> p1 p3 p4 (p2 cut)
//	q2: p2 3.5, p3 3.2, p1 3.0, p4 1.1 -> p2 p3 p1 (p4 cut)
//
// Packing "[id] text" blocks joined by a blank line into 200 characters:
// q1 takes p1 (83) and p3 (68): 83+2+68 = 153, 47 left, p4 cut to 45
// characters after its separator; q2 takes p2 (71) and p3 (68): 141, 59
// left, p1 cut to 57; q3 takes p8 (58) whole.
var pipeline = []struct {
	query                string
	candidates, reranked []string
	context              string
	answer               string
}{
	{"q1", []string{"p1", "p3", "p4", "p2"}, []string{"p1", "p3", "p4"},
		"[p1] Refund policy: returned items are refunded in full within 30 days of delivery.\n\n" +
			"[p3] Refund policy 2024: returned items are refunded within 14 days.\n\n" +
			"[p4] Internal: agents may approve a refund fo", // 45 characters
		"Returned items are refunded in full within 30 days [p1]."},
	{"q2", []string{"p2", "p3", "p1", "p4"}, []string{"p2", "p3", "p1"},
		"[p2] Clearance items are final sale and cannot be refunded or returned.\n\n" +
			"[p3] Refund policy 2024: returned items are refunded within 14 days.\n\n" +
			"[p1] Refund policy: returned items are refunded in full w", // 57 characters
		"No: clearance items are final sale [p2]; see also [p9]."},
	{"q3", []string{"p8"}, []string{"p8"},
		"[p8] Restore a deleted file from the trash within 30 days.",
		"Deleted files can be restored from the trash within 30 days [p8]."},
}

// TestLangChainPipeline runs the LangChain.js pipeline, traced by
// OpenInference's instrumentation, twice: once exporting through the
// OTLP/HTTP JSON exporter (gzip, a request per span), once through the
// protobuf exporter (batched), both to `ragstat collect`. It checks the
// collected spans against the hand-worked pipeline above, then imports
// them and checks what `ragstat stages` makes of them against numbers
// worked out by hand (see stagesByHand).
func TestLangChainPipeline(t *testing.T) {
	dir := nodeProject(t, filepath.Join("testdata", "langchain"), "")
	bin := buildRagstat(t)
	spans := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, bin, spans)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", "pipeline.mjs", "json:rag-json", "proto:rag-proto")
	node.Dir = dir
	node.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+c.endpoint)
	if out, err := node.CombinedOutput(); err != nil {
		c.stop(t)
		t.Fatalf("the pipeline failed: %v\n%s", err, out)
	}
	if msg := c.stop(t); !strings.Contains(msg, "(60 spans) written") || !strings.Contains(msg, ", 0 refused") {
		t.Errorf("collect said %q; want 60 spans, none refused", msg)
	}
	checkSpans(t, spans)
	checkStages(t, bin, dir, spans)
}

// nodeProject returns the directory of the npm project sub of root (root
// itself when sub is ""), with its packages installed: the project itself
// when `npm ci` was run there (as .ci/run does). Without them, or without
// node and npm, the test is skipped, unless CI is set: then the project's
// files and root's are copied here and installed with npm ci.
func nodeProject(t *testing.T, root, sub string) string {
	t.Helper()
	ci := os.Getenv("CI") != ""
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if ci {
				t.Fatalf("CI is set but %s is missing", tool)
			}
			t.Skipf("%s is missing", tool)
		}
	}
	src, err := filepath.Abs(filepath.Join(root, sub))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules", ".package-lock.json")); err == nil {
		return src
	}
	if !ci {
		t.Skipf("%s has no node_modules: run npm ci --prefix %s (CI does)", src, filepath.Join(root, sub))
	}
	dir := t.TempDir()
	for _, d := range []string{"", sub} {
		entries, err := os.ReadDir(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(root, d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, d, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = filepath.Join(dir, sub)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	return filepath.Join(dir, sub)
}

// buildRagstat builds the command once for the tests of the package.
func buildRagstat(t *testing.T) string {
	t.Helper()
	built.Do(func() {
		dir, err := os.MkdirTemp("", "ragstat-e2e-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		built.bin = filepath.Join(dir, "ragstat")
		out, err := exec.Command("go", "build", "-o", built.bin, "github.com/ragstat/ragstat/cmd/ragstat").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

var built struct {
	sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

type collector struct {
	cmd      *exec.Cmd
	endpoint string
	grpc     string      // host:port of OTLP/gRPC
	stderr   chan string // what it said after its endpoint, once it exits
}

var (
	endpointLine = regexp.MustCompile(`OTEL_EXPORTER_OTLP_ENDPOINT=(http://\S+)`)
	grpcLine     = regexp.MustCompile(`OTLP/gRPC at (\S+)`)
)

// startCollect starts `ragstat collect` on a free loopback port.
func startCollect(t *testing.T, bin, out string) *collector {
	t.Helper()
	cmd := exec.Command(bin, "collect", "--addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &collector{cmd: cmd, stderr: make(chan string, 1)}
	found := make(chan string, 1)
	go func() {
		var rest strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			// collect names its gRPC address before its endpoint.
			if m := grpcLine.FindStringSubmatch(sc.Text()); m != nil {
				c.grpc = m[1]
				continue
			}
			if m := endpointLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				continue
			}
			rest.WriteString(sc.Text() + "\n")
		}
		close(found)
		c.stderr <- rest.String()
	}()
	select {
	case u, ok := <-found:
		if !ok {
			cmd.Wait()
			t.Fatalf("collect exited before serving: %s", <-c.stderr)
		}
		c.endpoint = u
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("collect did not start in 30 s")
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return c
}

// stop sends SIGTERM, expects a clean exit and returns what collect said.
func (c *collector) stop(t *testing.T) string {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	msg := <-c.stderr
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("collect did not stop cleanly: %v\n%s", err, msg)
	}
	return msg
}

// span is what checkSpans looks at in one span.
type span struct {
	system, trace, id, parent, name, kind string
	attrs                                 map[string]any
}

// readSpans reads a file `ragstat collect` wrote: the requests per system
// (resource service.name) and the spans of each system's traces.
func readSpans(t *testing.T, path string) (map[string]int, map[string]map[string][]span) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	requests := map[string]int{}
	traces := map[string]map[string][]span{} // system, trace id
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, rs := range td.ResourceSpans().All() {
			sys, _ := rs.Resource().Attributes().Get("service.name")
			requests[sys.Str()]++
			for _, ss := range rs.ScopeSpans().All() {
				for _, sp := range ss.Spans().All() {
					s := span{system: sys.Str(), trace: sp.TraceID().String(), id: sp.SpanID().String(),
						parent: sp.ParentSpanID().String(), name: sp.Name(), attrs: sp.Attributes().AsRaw()}
					s.kind, _ = s.attrs["openinference.span.kind"].(string)
					if traces[s.system] == nil {
						traces[s.system] = map[string][]span{}
					}
					traces[s.system][s.trace] = append(traces[s.system][s.trace], s)
				}
			}
		}
	}
	return requests, traces
}

// checkSpans reads the collected file and checks every trace of both
// systems against the hand-worked pipeline.
func checkSpans(t *testing.T, path string) {
	t.Helper()
	requests, traces := readSpans(t, path)
	// SimpleSpanProcessor sends each span on its own; the batches hold 8.
	if requests["rag-json"] != 30 || requests["rag-proto"] < 4 || requests["rag-proto"] > 30 {
		t.Errorf("requests per system: %v; want 30 from rag-json, 4 to 30 from rag-proto", requests)
	}
	for _, sys := range []string{"rag-json", "rag-proto"} {
		byQuery := map[string][]span{}
		for _, spans := range traces[sys] {
			if len(spans) != 10 {
				t.Errorf("%s: a trace of %d spans, want 10", sys, len(spans))
			}
			q := queryOf(t, spans)
			if byQuery[q] != nil {
				t.Errorf("%s: two traces for %s", sys, q)
			}
			byQuery[q] = spans
		}
		for _, want := range pipeline {
			spans := byQuery[want.query]
			if spans == nil {
				t.Errorf("%s: no trace for %s", sys, want.query)
				continue
			}
			outer, inner := one(t, spans, "RerankRetriever"), one(t, spans, "KeywordRetriever")
			llm := one(t, spans, "FakeListChatModel")
			if outer.kind != "RETRIEVER" || inner.kind != "RETRIEVER" || llm.kind != "LLM" {
				t.Errorf("%s %s: span kinds %s, %s, %s", sys, want.query, outer.kind, inner.kind, llm.kind)
			}
			if inner.parent != outer.id {
				t.Errorf("%s %s: the keyword retriever's span is not inside the reranker's", sys, want.query)
			}
			if got := documentIDs(t, inner); !slices.Equal(got, want.candidates) {
				t.Errorf("%s %s: candidates %v, want %v", sys, want.query, got, want.candidates)
			}
			if got := documentIDs(t, outer); !slices.Equal(got, want.reranked) {
				t.Errorf("%s %s: reranked %v, want %v", sys, want.query, got, want.reranked)
			}
			system, _ := llm.attrs["llm.input_messages.0.message.content"].(string)
			if ctx, ok := strings.CutPrefix(system, "Answer from the context only and cite passages as [id].\n\nContext:\n"); !ok || ctx != want.context {
				t.Errorf("%s %s: the system message is %q, want the context %q", sys, want.query, system, want.context)
			}
			if got := llm.attrs["llm.output_messages.0.message.content"]; got != want.answer {
				t.Errorf("%s %s: answer %q, want %q", sys, want.query, got, want.answer)
			}
		}
	}
}

// queryOf is the query_id of the run metadata every span carries.
func queryOf(t *testing.T, spans []span) string {
	t.Helper()
	q := ""
	for _, s := range spans {
		var meta struct {
			QueryID string `json:"query_id"`
		}
		raw, _ := s.attrs["metadata"].(string)
		if err := json.Unmarshal([]byte(raw), &meta); err != nil || meta.QueryID == "" || q != "" && meta.QueryID != q {
			t.Fatalf("span %s carries metadata %q", s.name, raw)
		}
		q = meta.QueryID
	}
	return q
}

func one(t *testing.T, spans []span, name string) span {
	t.Helper()
	var found []span
	for _, s := range spans {
		if s.name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %s in a trace", len(found), name)
	}
	return found[0]
}

// documentIDs are the ids in the metadata of a retriever span's documents:
// the LangChain instrumentation records content and metadata, no id.
func documentIDs(t *testing.T, s span) []string {
	t.Helper()
	var ids []string
	for i := 0; ; i++ {
		raw, ok := s.attrs["retrieval.documents."+strconv.Itoa(i)+".document.metadata"].(string)
		if !ok {
			return ids
		}
		if _, has := s.attrs["retrieval.documents."+strconv.Itoa(i)+".document.id"]; has {
			t.Errorf("%s: the instrumentation now records document ids", s.name)
		}
		var meta struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(raw), &meta); err != nil {
			t.Fatalf("%s document %d: metadata %q: %v", s.name, i, raw, err)
		}
		ids = append(ids, meta.ID)
	}
}

// The judgments, topics and corpus the stages check reads. Every query runs
// as of 2026-06-01 under the scope "public": p3 (valid until 2025-01-01)
// is stale and p4 (scope "internal") out of scope wherever they appear.
const (
	judgmentsJSONL = `{"query":"q1","item":"p1","grade":2,"spans":["within 30 days of delivery"]}
{"query":"q1","item":"p2","grade":1,"spans":["final sale"]}
{"query":"q1","item":"p3","grade":1,"spans":["within 14 days"]}
{"query":"q1","item":"p4","grade":1,"spans":["fraud threshold"]}
{"query":"q2","item":"p1","grade":1,"spans":["within 30 days"]}
{"query":"q2","item":"p2","grade":2,"spans":["final sale"]}
{"query":"q2","item":"p3","grade":0}
{"query":"q2","item":"p4","grade":0}
{"query":"q3","item":"p7","grade":2,"spans":["within 24 hours"]}
{"query":"q3","item":"p8","grade":0}
`
	topicsJSONL = `{"id":"q1","text":"How do I get a refund for returned items?","scopes":["public"],"as_of":"2026-06-01","facts":[{"id":"window","support":[{"item":"p1","span":"within 30 days"}]}],"answers":["Returned items are refunded in full within 30 days."]}
{"id":"q2","text":"Can clearance items from 2024 be refunded?","scopes":["public"],"as_of":"2026-06-01","facts":[{"id":"final","support":[{"item":"p2","span":"final sale"}]},{"id":"window","support":[{"item":"p1","span":"within 30 days"}]}],"answers":["No: clearance items are final sale."]}
{"id":"q3","text":"How long does a backup restore take?","scopes":["public"],"as_of":"2026-06-01","facts":[{"id":"restore","support":[{"item":"p7","span":"within 24 hours"}]}],"answers":["Backups are restored within 24 hours."]}
`
)

// stagesByHand are R, RR and nDCG (gain 2^g-1, log2 discount, the ideal
// from every valid judgment) per query and stage. An out-of-scope or stale
// item is no evidence: it scores 0 where it appears and leaves the recall
// denominator and the ideal ranking; a context item whose judged span was
// cut counts as grade 0.
//
//	q1, relevant p1 (2), p2 (1), and p3 (stale), p4 (out of scope), which
//	  do not count; ideal 3 + 1/log2(3)
//	  candidates p1 p3(stale) p4(scope) p2: R 2/2, RR 1, DCG 3 + 1/log2(5)
//	  reranked, context p1 p3 p4: R 1/2, RR 1, DCG 3
//	q2, relevant p2 (2), p1 (1); ideal 3 + 1/log2(3)
//	  candidates, reranked p2 p3 p1: R 1, RR 1, DCG 3 + 1/log2(4)
//	  context p2 p3 p1 (cut to "Refund policy: returned items are
//	  refunded in full w", its span "within 30 days" lost): R 1/2, RR 1, DCG 3
//	q3, relevant p7, never retrieved: 0 everywhere.
func stagesByHand() map[string]map[string][3]float64 {
	ideal := 3 + 1/math.Log2(3) // q1 and q2 alike
	return map[string]map[string][3]float64{
		"candidates": {"q1": {1, 1, (3 + 1/math.Log2(5)) / ideal}, "q2": {1, 1, (3 + 1/math.Log2(4)) / ideal}, "q3": {}},
		"reranked":   {"q1": {0.5, 1, 3 / ideal}, "q2": {1, 1, (3 + 1/math.Log2(4)) / ideal}, "q3": {}},
		"context":    {"q1": {0.5, 1, 3 / ideal}, "q2": {0.5, 1, 3 / ideal}, "q3": {}},
	}
}

// stagesResult is the part of `ragstat stages --format json` checked here.
type stagesResult struct {
	Result struct {
		Systems []struct {
			Name   string
			Stages []struct {
				Name string
				Eval struct {
					Queries []struct {
						Query   string
						Metrics map[string]float64
					}
				}
			}
			EvidenceLoss struct {
				Items []struct{ Query, What, Status string }
			} `json:"evidence_loss"`
			Context struct {
				TruncatedAway []struct{ Query, What string } `json:"truncated_away"`
			}
			Validity struct {
				OutOfScope []struct{ Query, Stage, Item string } `json:"out_of_scope"`
				Stale      []struct{ Query, Stage, Item string }
			}
			Answers struct {
				Cited             int
				CitedNotInContext []struct{ Query, Item string } `json:"cited_not_in_context"`
				FalseAbstentions  int                            `json:"false_abstentions"`
			}
		}
	}
}

// checkStages imports the collected spans (document ids from their
// metadata, the retrievers named as stages) and checks the stages report
// of both systems against stagesByHand.
func checkStages(t *testing.T, bin, project, spans string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	judgments, topics := write("judgments.jsonl", judgmentsJSONL), write("topics.jsonl", topicsJSONL)
	corpus := write("corpus.jsonl", corpusOf(t, filepath.Join(project, "data.json")))
	traces := filepath.Join(dir, "traces.jsonl")
	_, msg := ragstat(t, bin, "import", "otlp", spans, "--item-id", "metadata.id", "--stage", "KeywordRetriever=candidates",
		"--stage", "RerankRetriever=reranked", "--corpus", corpus, "--out", traces)
	for _, want := range []string{"imported 6 traces from 60 otlp spans", "context items: 10 packed whole, 4 truncated, 0 dropped in packing", `"p9"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("import said %q; want %q", msg, want)
		}
	}
	out, _ := ragstat(t, bin, "stages", "-j", judgments, "--topics", topics, "--corpus", corpus, "--format", "json", traces)
	var res stagesResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	want := stagesByHand()
	if len(res.Result.Systems) != 2 {
		t.Fatalf("%d systems, want rag-json and rag-proto", len(res.Result.Systems))
	}
	for _, sys := range res.Result.Systems {
		var names []string
		for _, st := range sys.Stages {
			names = append(names, st.Name)
			for _, q := range st.Eval.Queries {
				w := want[st.Name][q.Query]
				for i, m := range []string{"R", "RR", "nDCG"} {
					if got := q.Metrics[m]; math.Abs(got-w[i]) > 1e-12 {
						t.Errorf("%s %s %s: %s = %.6f, by hand %.6f", sys.Name, st.Name, q.Query, m, got, w[i])
					}
				}
			}
			if len(st.Eval.Queries) != 3 {
				t.Errorf("%s %s: %d queries", sys.Name, st.Name, len(st.Eval.Queries))
			}
		}
		if got := strings.Join(names, " "); got != "candidates reranked context" {
			t.Errorf("%s: stages %s", sys.Name, got)
		}
		var loss []string
		for _, it := range sys.EvidenceLoss.Items {
			loss = append(loss, it.Query+" "+it.What+": "+it.Status)
		}
		slices.Sort(loss)
		if got, want := strings.Join(loss, "; "), "q1 p1: delivered; q1 p2: cut between candidates and reranked; "+
			"q1 p3: stale (not in effect at as_of); q1 p4: out of scope (not acceptable evidence); "+
			"q2 p1: truncated (span lost); q2 p2: delivered; q3 p7: not retrieved"; got != want {
			t.Errorf("%s: evidence stopped at\n%s\nwant\n%s", sys.Name, got, want)
		}
		if got := fmt.Sprint(sys.Context.TruncatedAway); got != "[{q2 p1}]" {
			t.Errorf("%s: truncated away %s", sys.Name, got)
		}
		if got := fmt.Sprint(sys.Validity.OutOfScope); got != "[{q1 candidates p4} {q1 reranked p4} {q1 context p4} {q2 candidates p4}]" {
			t.Errorf("%s: out of scope %s", sys.Name, got)
		}
		if got := fmt.Sprint(sys.Validity.Stale); got != "[{q1 candidates p3} {q1 reranked p3} {q1 context p3} {q2 candidates p3} {q2 reranked p3} {q2 context p3}]" {
			t.Errorf("%s: stale %s", sys.Name, got)
		}
		if got := fmt.Sprint(sys.Answers.Cited, sys.Answers.CitedNotInContext); got != "4 [{q2 p9}]" {
			t.Errorf("%s: citations %s", sys.Name, got)
		}
	}
	checkRetained(t, traces)
}

// checkRetained checks the text the import kept of the two passages the
// packing step cut.
func checkRetained(t *testing.T, traces string) {
	t.Helper()
	data, err := os.ReadFile(traces)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"q1 p4": "Internal: agents may approve a refund fo",
		"q2 p1": "Refund policy: returned items are refunded in full w",
	}
	found := 0
	for line := range strings.Lines(string(data)) {
		var tr struct {
			Query, System string
			Stages        []struct {
				Name  string
				Items []struct{ ID, Text string }
			}
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		for _, st := range tr.Stages {
			for _, it := range st.Items {
				if w, ok := want[tr.Query+" "+it.ID]; ok && st.Name == "context" {
					found++
					if it.Text != w {
						t.Errorf("%s %s %s: retained %q, want %q", tr.System, tr.Query, it.ID, it.Text, w)
					}
				}
			}
		}
	}
	if found != 4 {
		t.Errorf("%d truncated context items, want 2 per system", found)
	}
}

// corpusOf writes the passages of a pipeline's data file as a ragstat
// corpus.
func corpusOf(t *testing.T, dataFile string) string {
	t.Helper()
	raw, err := os.ReadFile(dataFile)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Passages []struct {
			Text     string
			Metadata map[string]string
		}
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range data.Passages {
		p.Metadata["text"] = p.Text
		line, _ := json.Marshal(p.Metadata)
		b.Write(append(line, '\n'))
	}
	return b.String()
}

// ragstat runs the built command and returns its standard output and
// error; it fails the test unless the command succeeds.
func ragstat(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ragstat %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}
