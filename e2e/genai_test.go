package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/ragstat/ragstat/trace"
)

// exampleData is what the Go services read of ../examples/data.json: the
// passages' text and the queries' text by id.
func exampleData(t *testing.T) (passages, queries map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "examples", "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Passages []struct {
			Text     string
			Metadata struct{ ID string }
		}
		Queries []struct{ ID, Text string }
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	passages, queries = map[string]string{}, map[string]string{}
	for _, p := range data.Passages {
		passages[p.Metadata.ID] = p.Text
	}
	for _, q := range data.Queries {
		queries[q.ID] = q.Text
	}
	return passages, queries
}

// genAIProvider is an OpenTelemetry Go SDK tracer provider exporting to
// collect, batched: through the OTLP/HTTP exporter (protobuf, gzip), or
// with grpc through the OTLP/gRPC one.
func genAIProvider(t *testing.T, c *collector, system string, grpc bool) *sdktrace.TracerProvider {
	t.Helper()
	var exp sdktrace.SpanExporter
	var err error
	if grpc {
		exp, err = otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpoint(c.grpc), otlptracegrpc.WithInsecure())
	} else {
		exp, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(c.endpoint+"/v1/traces"),
			otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	}
	if err != nil {
		t.Fatal(err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", system))))
}

// documentsJSON is a list as gen_ai.retrieval.documents records it: a
// JSON array of {id, score}.
func documentsJSON(t *testing.T, list []scored) string {
	t.Helper()
	type doc struct {
		ID    string  `json:"id"`
		Score float64 `json:"score"`
	}
	docs := []doc{}
	for _, s := range list {
		docs = append(docs, doc{s.id, s.score})
	}
	b, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// messagesJSON is a GenAI message list (gen_ai.input.messages or
// gen_ai.output.messages): role and text pairs, each a message of one
// text part.
func messagesJSON(t *testing.T, finish string, roleText ...string) string {
	t.Helper()
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type message struct {
		Role         string `json:"role"`
		Parts        []part `json:"parts"`
		FinishReason string `json:"finish_reason,omitempty"`
	}
	var msgs []message
	for i := 0; i+1 < len(roleText); i += 2 {
		msgs = append(msgs, message{roleText[i], []part{{"text", roleText[i+1]}}, finish})
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chat records a chat span of the fake model: the system message holds the
// context as "[id] text" blocks separated by a blank line.
func chat(t *testing.T, ctx context.Context, tr oteltrace.Tracer, question, answer string, contextIDs, texts []string) {
	t.Helper()
	var blocks []string
	for i, text := range texts {
		blocks = append(blocks, "["+contextIDs[i]+"] "+text)
	}
	system := "Answer from the context only and cite passages as [id].\n\nContext:\n" + strings.Join(blocks, "\n\n")
	_, sp := tr.Start(ctx, "chat fake-chat", oteltrace.WithSpanKind(oteltrace.SpanKindClient), oteltrace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", "fake"),
		attribute.String("gen_ai.request.model", "fake-chat"),
		attribute.String("gen_ai.input.messages", messagesJSON(t, "", "system", system, "user", question)),
		attribute.String("gen_ai.output.messages", messagesJSON(t, "stop", "assistant", answer)),
	))
	sp.End()
}

// TestGenAIService: a Go service traced with the OpenTelemetry Go SDK
// alone, under the GenAI conventions, runs the example pipeline worked out
// by hand (see examples): per query a workflow span holding a GenAI
// retrieval span (gen_ai.retrieval.documents, ids and scores, no text),
// the service's own rerank span (its list in an attribute of its own,
// which --documents maps) and a chat span whose system message holds the
// packed context; the query id is an attribute of the workflow span. No
// budget is recorded. The spans go to collect through the Go OTLP/HTTP
// exporter (system go-genai) and the OTLP/gRPC one (go-genai-grpc), and
// `ragstat stages` must find the hand-worked numbers in both.
func TestGenAIService(t *testing.T) {
	bin := buildRagstat(t)
	spans := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, bin, spans)
	_, queries := exampleData(t)
	for _, system := range []string{"go-genai", "go-genai-grpc"} {
		genAIService(t, genAIProvider(t, c, system, system == "go-genai-grpc"), queries)
	}
	if msg := c.stop(t); !strings.Contains(msg, "(32 spans) written") || !strings.Contains(msg, ", 0 refused") {
		t.Errorf("collect said %q; want 32 spans (4 a query), none refused", msg)
	}
	checkExampleStages(t, bin, spans, "genai", []string{"--query-id", "app.query_id",
		"--documents", "rerank=app.rerank.documents",
		"--stage", "retrieval keyword-index=candidates", "--stage", "rerank=reranked"}, "go-genai", "go-genai-grpc")
}

// genAIService runs the example pipeline's queries, traced through tp.
func genAIService(t *testing.T, tp *sdktrace.TracerProvider, queries map[string]string) {
	t.Helper()
	tr := tp.Tracer("rag-service")
	ctx := context.Background()
	for _, q := range examples {
		qctx, root := tr.Start(ctx, "invoke_workflow rag", oteltrace.WithAttributes(
			attribute.String("gen_ai.operation.name", "invoke_workflow"),
			attribute.String("gen_ai.agent.name", "rag"),
			attribute.String("app.query_id", q.query)))
		_, ret := tr.Start(qctx, "retrieval keyword-index", oteltrace.WithAttributes(
			attribute.String("gen_ai.operation.name", "retrieval"),
			attribute.String("gen_ai.data_source.id", "keyword-index"),
			attribute.String("gen_ai.retrieval.query.text", queries[q.query]),
			attribute.Int("gen_ai.retrieval.top_k", 4),
			attribute.String("gen_ai.retrieval.documents", documentsJSON(t, q.candidates))))
		ret.End()
		_, rr := tr.Start(qctx, "rerank", oteltrace.WithAttributes(
			attribute.Int("app.rerank.top_k", 3),
			attribute.String("app.rerank.documents", documentsJSON(t, q.reranked))))
		rr.End()
		chat(t, qctx, tr, queries[q.query], q.answer, q.contextIDs(), q.context)
		root.End()
	}
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatalf("exporting: %v", err)
	}
}

// The agent of TestGenAIAgent answers q2 ("Can clearance items from 2024
// be refunded?") after three searches of one tool, then packs p2 and p1
// whole:
//
//	call 1 "clearance items refund": p2, p6   union p2 p6        R 1/2, new relevant p2
//	call 2 "refund policy 2024":     p3, p2   union + p3         R 1/2, p2 a duplicate
//	call 3 "refund window days":     p1, p3   union + p1         R 1,   new relevant p1, p3 a duplicate
//
// (q2's relevant items are p2 and p1; p3 is stale and judged 0, p6
// unjudged.) The first relevant item comes with call 1; the union holds
// both relevant items, the context both, the answer cites p2 only.
var agentCalls = []struct {
	query string
	found []scored
}{
	{"clearance items refund", []scored{{"p2", 0.9}, {"p6", 0.4}}},
	{"refund policy 2024", []scored{{"p3", 0.8}, {"p2", 0.7}}},
	{"refund window days", []scored{{"p1", 0.9}, {"p3", 0.5}}},
}

// TestGenAIAgent: an agent traced with the OpenTelemetry Go SDK under the
// GenAI conventions searches three times before it answers, in each of
// the two forms GenAI has for a search: sibling retrieval spans of one
// name under its invoke_agent span (system go-agent-retrieval), and
// sibling execute_tool spans of a datastore tool, the documents in the
// tool call's result (system go-agent-tool). The import must make the
// three calls one search step, each call's query and ids in order, and not
// three stages.
func TestGenAIAgent(t *testing.T) {
	bin := buildRagstat(t)
	spans := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, bin, spans)
	passages, queries := exampleData(t)
	ctx := context.Background()
	search := map[string]func(oteltrace.Tracer, context.Context, string, []scored){
		"go-agent-retrieval": func(tr oteltrace.Tracer, ctx context.Context, query string, found []scored) {
			_, sp := tr.Start(ctx, "retrieval kb", oteltrace.WithAttributes(
				attribute.String("gen_ai.operation.name", "retrieval"),
				attribute.String("gen_ai.data_source.id", "kb"),
				attribute.String("gen_ai.retrieval.query.text", query),
				attribute.Int("gen_ai.retrieval.top_k", 2),
				attribute.String("gen_ai.retrieval.documents", documentsJSON(t, found))))
			sp.End()
		},
		"go-agent-tool": func(tr oteltrace.Tracer, ctx context.Context, query string, found []scored) {
			args, err := json.Marshal(map[string]any{"query": query, "top_k": 2})
			if err != nil {
				t.Fatal(err)
			}
			_, sp := tr.Start(ctx, "execute_tool search_kb", oteltrace.WithAttributes(
				attribute.String("gen_ai.operation.name", "execute_tool"),
				attribute.String("gen_ai.tool.name", "search_kb"),
				attribute.String("gen_ai.tool.type", "datastore"),
				attribute.String("gen_ai.tool.call.arguments", string(args)),
				attribute.String("gen_ai.tool.call.result", documentsJSON(t, found))))
			sp.End()
		},
	}
	for system, searchOnce := range search {
		tp := genAIProvider(t, c, system, false)
		tr := tp.Tracer("support-agent")
		actx, agent := tr.Start(ctx, "invoke_agent support", oteltrace.WithAttributes(
			attribute.String("gen_ai.operation.name", "invoke_agent"),
			attribute.String("gen_ai.agent.name", "support"),
			attribute.String("app.query_id", "q2")))
		for _, call := range agentCalls {
			searchOnce(tr, actx, call.query, call.found)
		}
		chat(t, actx, tr, queries["q2"], "No: clearance items are final sale [p2].", []string{"p2", "p1"}, []string{passages["p2"], passages["p1"]})
		agent.End()
		if err := tp.Shutdown(ctx); err != nil {
			t.Fatalf("exporting: %v", err)
		}
	}
	if msg := c.stop(t); !strings.Contains(msg, "(10 spans) written") || !strings.Contains(msg, ", 0 refused") {
		t.Errorf("collect said %q; want 10 spans, none refused", msg)
	}
	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(corpus, []byte(corpusOf(t, filepath.Join("..", "examples", "data.json"))), 0o644); err != nil {
		t.Fatal(err)
	}
	traces := filepath.Join(t.TempDir(), "traces.jsonl")
	_, msg := ragstat(t, bin, "import", "otlp", spans, "--query-id", "app.query_id", "--corpus", corpus, "--out", traces)
	if !strings.Contains(msg, "imported 2 traces") || !strings.Contains(msg, "conventions: genai") {
		t.Errorf("import said %q", msg)
	}
	raw, err := os.ReadFile(traces)
	if err != nil {
		t.Fatal(err)
	}
	var systems []string
	for line := range strings.Lines(string(raw)) {
		var got trace.Trace
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		systems = append(systems, got.System)
		checkSearchStep(t, got)
	}
	if slices.Sort(systems); !slices.Equal(systems, []string{"go-agent-retrieval", "go-agent-tool"}) {
		t.Errorf("traces of %v", systems)
	}
	checkSearchReport(t, bin, corpus, traces)
}

// checkSearchReport checks what `ragstat stages` reports of each agent's
// search step against agentCalls worked out by hand (p6, unjudged, is
// read as not relevant; only q2 ran).
func checkSearchReport(t *testing.T, bin, corpus, traces string) {
	t.Helper()
	out, _ := ragstat(t, bin, "stages", "-j", exampleJudgments, "--topics", exampleTopics, "--corpus", corpus, "--unjudged", "nonrelevant", "--queries", "run", "--format", "json", traces)
	type call struct {
		Query                  string
		Items, New, Duplicates int
		NewRelevant            int `json:"new_relevant"`
		Recall                 float64
	}
	var res struct {
		Result struct {
			Systems []struct {
				Name  string
				Steps []struct {
					Query, Stage      string
					Relevant          int
					Calls             []call
					FirstRelevantCall int `json:"first_relevant_call"`
					Union, Duplicates int
					UnionRelevant     int `json:"union_relevant"`
					UnionInContext    int `json:"union_in_context"`
					UnionCited        int `json:"union_cited"`
					RelevantInContext int `json:"relevant_in_context"`
					RelevantCited     int `json:"relevant_cited"`
				} `json:"search_steps"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	// Per call: what it returned, the new items, the new relevant ones,
	// the duplicates of earlier calls, and the union's recall after it.
	want := "q2 (2 relevant): [clearance items refund 2 2 1 0 0.5] [refund policy 2024 2 1 0 1 0.5] [refund window days 2 1 1 1 1]; " +
		"first relevant call 1, union 4 (2 duplicates, 2 relevant, 2 in the context, 1 cited), relevant 2 in the context, 1 cited"
	if len(res.Result.Systems) != 2 {
		t.Fatalf("%d systems in the stages report", len(res.Result.Systems))
	}
	for _, sys := range res.Result.Systems {
		if len(sys.Steps) != 1 {
			t.Errorf("%s: %d search steps, want 1", sys.Name, len(sys.Steps))
			continue
		}
		st := sys.Steps[0]
		var calls []string
		for _, c := range st.Calls {
			calls = append(calls, fmt.Sprint([]any{c.Query, c.Items, c.New, c.NewRelevant, c.Duplicates, c.Recall}))
		}
		got := fmt.Sprintf("%s (%d relevant): %s; first relevant call %d, union %d (%d duplicates, %d relevant, %d in the context, %d cited), relevant %d in the context, %d cited",
			st.Query, st.Relevant, strings.Join(calls, " "), st.FirstRelevantCall, st.Union, st.Duplicates, st.UnionRelevant, st.UnionInContext, st.UnionCited, st.RelevantInContext, st.RelevantCited)
		if got != want {
			t.Errorf("%s: search step\n%s\nwant\n%s", sys.Name, got, want)
		}
	}
}

// checkSearchStep checks an imported agent trace: one search step of the
// three calls of agentCalls, then the context.
func checkSearchStep(t *testing.T, got trace.Trace) {
	t.Helper()
	var stages []string
	for _, st := range got.Stages {
		stages = append(stages, st.Name)
	}
	if len(got.Stages) != 2 || got.Stages[1].Name != trace.ContextStage {
		t.Errorf("%s: stages %v; want one search step and the context", got.System, stages)
		return
	}
	step := got.Stages[0]
	if !slices.Equal(step.IDs(), []string{"p2", "p6", "p3", "p1"}) || len(step.Calls) != len(agentCalls) {
		t.Errorf("%s: the search step holds %v in %d calls; want the union p2 p6 p3 p1 of 3 calls", got.System, step.IDs(), len(step.Calls))
		return
	}
	for i, call := range agentCalls {
		if c := step.Calls[i]; c.Query != call.query || !slices.Equal(c.IDs, ids(call.found)) {
			t.Errorf("%s call %d: %q %v, want %q %v", got.System, i+1, c.Query, c.IDs, call.query, ids(call.found))
		}
	}
	if ctx := got.Stage(trace.ContextStage).IDs(); !slices.Equal(ctx, []string{"p2", "p1"}) {
		t.Errorf("%s: context %v, want p2 p1", got.System, ctx)
	}
}
