package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// TestLangChainPipeline runs the LangChain.js pipeline of
// examples/langchain-openinference (the example pipeline worked out by
// hand, see examples), traced by OpenInference's instrumentation, twice:
// once exporting through the OTLP/HTTP JSON exporter (gzip, a request per
// span), once through the protobuf exporter (batched), both to `ragstat
// collect`. It checks the collected spans against the hand-worked
// pipeline, then what `ragstat import otlp` and `ragstat stages` make of
// them.
func TestLangChainPipeline(t *testing.T) {
	dir := nodeProject(t, filepath.Join("..", "examples"), "langchain-openinference")
	bin := buildRagstat(t)
	spans := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, bin, spans)
	runNode(t, dir, nodeRun{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.endpoint}, []string{"pipeline.mjs", "json:rag-json", "proto:rag-proto"}})
	if msg := c.stop(t); !strings.Contains(msg, "(80 spans) written") || !strings.Contains(msg, ", 0 refused") {
		t.Errorf("collect said %q; want 80 spans, none refused", msg)
	}
	checkSpans(t, spans)
	checkExampleStages(t, bin, spans, "openinference", []string{"--item-id", "metadata.id",
		"--stage", "KeywordRetriever=candidates", "--stage", "RerankRetriever=reranked"}, "rag-json", "rag-proto")
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
			t.Skipf("skipped: %s needs %s, which is missing", t.Name(), tool)
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
		t.Skipf("skipped: %s needs the npm packages of %s: run npm ci --prefix %s (CI does)", t.Name(), src, src)
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
	found := make(chan [2]string, 1) // the endpoint and the gRPC address
	go func() {
		var rest strings.Builder
		var endpoint, grpc string
		sent := false
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := endpointLine.FindStringSubmatch(sc.Text()); m != nil {
				endpoint = m[1]
			} else if m := grpcLine.FindStringSubmatch(sc.Text()); m != nil {
				grpc = m[1]
			} else {
				rest.WriteString(sc.Text() + "\n")
				continue
			}
			if endpoint != "" && grpc != "" && !sent {
				found <- [2]string{endpoint, grpc}
				sent = true
			}
		}
		close(found)
		c.stderr <- rest.String()
	}()
	select {
	case addrs, ok := <-found:
		if !ok {
			cmd.Wait()
			t.Fatalf("collect exited before serving: %s", <-c.stderr)
		}
		c.endpoint, c.grpc = addrs[0], addrs[1]
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

// checkSpans reads the spans of the LangChain.js pipeline traced by
// OpenInference and checks every trace of both systems against the
// hand-worked pipeline: per query 10 spans carrying the query id in their
// metadata, the keyword retriever inside the reranking one, their
// documents, the prompt holding the packed context, and the answer.
func checkSpans(t *testing.T, path string) {
	t.Helper()
	requests, traces := readSpans(t, path)
	// SimpleSpanProcessor sends each span on its own; the batches hold 8.
	if requests["rag-json"] != 40 || requests["rag-proto"] < 5 || requests["rag-proto"] > 40 {
		t.Errorf("requests per system: %v; want 40 from rag-json, 5 to 40 from rag-proto", requests)
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
		for _, want := range examples {
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
			if got := documentIDs(t, inner); !slices.Equal(got, ids(want.candidates)) {
				t.Errorf("%s %s: candidates %v, want %v", sys, want.query, got, ids(want.candidates))
			}
			if got := documentIDs(t, outer); !slices.Equal(got, ids(want.reranked)) {
				t.Errorf("%s %s: reranked %v, want %v", sys, want.query, got, ids(want.reranked))
			}
			system, _ := llm.attrs["llm.input_messages.0.message.content"].(string)
			if ctx, ok := strings.CutPrefix(system, "Answer from the context only and cite passages as [id].\n\nContext:\n"); !ok || ctx != want.contextBlocks() {
				t.Errorf("%s %s: the system message is %q, want the context %q", sys, want.query, system, want.contextBlocks())
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
				FalseAbstention   float64                        `json:"false_abstention_rate"`
			}
		}
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
