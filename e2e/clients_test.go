package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragstat/ragstat/trace"
)

// The example pipelines of ../examples (rag.mjs and data.json), worked out
// by hand. Query terms (stop words out) and the terms of each passage they
// share:
//
//	q1 {refund, returned, items}: p1 3, p3 3, p4 3, p2 2 (returned, items)
//	q2 {clearance, items, 2024, refunded}: p2 3, p3 3, p1 2, p4 1, p6 1
//	q3 {backup, restore}: p8 1 (p7 says "backups", "restored")
//	q4 {gift, cards, refunded}: p6 3, p1 1, p2 1, p3 1
//
// Retrieval keeps the top 4 (ties in corpus order); the reranker adds the
// quality prior (p1 1.0, p2 0.5, p3 0.2, p4 0.1) and keeps 3:
//
//	q1: p1 4.0, p3 3.2, p4 3.1, p2 2.5 -> p1 p3 p4 (p2 cut)
//	q2: p2 3.5, p3 3.2, p1 3.0, p4 1.1 -> p2 p3 p1 (p4 cut)
//	q4: p6 3, p1 2, p2 1.5, p3 1.2 -> p6 p1 p2 (p3 cut)
//
// Packing counts tokens (whitespace-separated words) of the passages'
// text into a budget of 28; the first passage that does not fit is cut to
// the tokens left (when 5 or more are) and packing stops:
//
//	q1: p1 13 + p3 10 = 23, p4 cut to 5 tokens
//	q2: p2 11 + p3 10 = 21, p1 cut to 7 tokens (its span "within 30 days" lost)
//	q3: p8 10
//	q4: p6 7 + p1 13 = 20, p2 cut to 8 tokens
//
// The fake chat model answers q4 "I cannot answer this from the context."
// although p6, which answers it, is in the context: a false abstention.
var examples = []exampleQuery{
	{"q1", []scored{{"p1", 3}, {"p3", 3}, {"p4", 3}, {"p2", 2}}, []scored{{"p1", 4}, {"p3", 3.2}, {"p4", 3.1}},
		[]string{"Refund policy: returned items are refunded in full within 30 days of delivery.",
			"Refund policy 2024: returned items are refunded within 14 days.",
			"Internal: agents may approve a"},
		"Returned items are refunded in full within 30 days [p1]."},
	{"q2", []scored{{"p2", 3}, {"p3", 3}, {"p1", 2}, {"p4", 1}}, []scored{{"p2", 3.5}, {"p3", 3.2}, {"p1", 3}},
		[]string{"Clearance items are final sale and cannot be refunded or returned.",
			"Refund policy 2024: returned items are refunded within 14 days.",
			"Refund policy: returned items are refunded in"},
		"No: clearance items are final sale [p2]; see also [p9]."},
	{"q3", []scored{{"p8", 1}}, []scored{{"p8", 1}},
		[]string{"Restore a deleted file from the trash within 30 days."},
		"Deleted files can be restored from the trash within 30 days [p8]."},
	{"q4", []scored{{"p6", 3}, {"p1", 1}, {"p2", 1}, {"p3", 1}}, []scored{{"p6", 3}, {"p1", 2}, {"p2", 1.5}},
		[]string{"Gift cards cannot be refunded or exchanged.",
			"Refund policy: returned items are refunded in full within 30 days of delivery.",
			"Clearance items are final sale and cannot be"},
		"I cannot answer this from the context."},
}

// exampleQuery is one query of the example pipelines, worked out by hand.
type exampleQuery struct {
	query                string
	candidates, reranked []scored
	context              []string // each context item's text, a cut one's prefix
	answer               string
}

// scored is an item id and its score.
type scored struct {
	id    string
	score float64
}

func (s scored) String() string { return fmt.Sprintf("%s %g", s.id, s.score) }

// ids are the ids of a list, in order.
func ids(list []scored) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.id)
	}
	return out
}

// contextIDs are the ids of a query's context items: the reranked ones
// packing kept.
func (e exampleQuery) contextIDs() []string { return ids(e.reranked)[:len(e.context)] }

// contextBlocks is the context the LangChain.js pipelines pack: "[id]
// text" blocks separated by a blank line.
func (e exampleQuery) contextBlocks() string {
	var blocks []string
	for i, text := range e.context {
		blocks = append(blocks, "["+e.reranked[i].id+"] "+text)
	}
	return strings.Join(blocks, "\n\n")
}

// The example pipelines' judgments and topics are examples/judgments.jsonl
// and examples/topics.jsonl. Every query runs as of 2026-06-01 under the
// scope "public": p3 (valid until 2025-01-01) is stale and p4 (scope
// "internal") out of scope wherever they appear. p6 answers q4; p1, p2
// and p3 say nothing of gift cards.
var (
	exampleJudgments = filepath.Join("..", "examples", "judgments.jsonl")
	exampleTopics    = filepath.Join("..", "examples", "topics.jsonl")
)

// abstainPattern finds the fake chat model's abstention.
const abstainPattern = `^I cannot answer`

// examplesByHand are R, RR and nDCG (gain 2^g-1, log2 discount, the ideal
// from every valid judgment) per stage and query. An out-of-scope or stale
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
//	  refunded in", its span "within 30 days" lost): R 1/2, RR 1, DCG 3
//	q3, relevant p7, never retrieved: 0 everywhere.
//	q4, relevant p6 (2), first at every stage: 1 everywhere.
func examplesByHand() map[string]map[string][3]float64 {
	ideal := 3 + 1/math.Log2(3) // q1 and q2 alike
	return map[string]map[string][3]float64{
		"candidates": {"q1": {1, 1, (3 + 1/math.Log2(5)) / ideal}, "q2": {1, 1, (3 + 1/math.Log2(4)) / ideal}, "q3": {}, "q4": {1, 1, 1}},
		"reranked":   {"q1": {0.5, 1, 3 / ideal}, "q2": {1, 1, (3 + 1/math.Log2(4)) / ideal}, "q3": {}, "q4": {1, 1, 1}},
		"context":    {"q1": {0.5, 1, 3 / ideal}, "q2": {0.5, 1, 3 / ideal}, "q3": {}, "q4": {1, 1, 1}},
	}
}

// nodeRun is one run of a node program: its environment, added to this
// process's, and its arguments.
type nodeRun struct {
	env  []string
	args []string
}

// runNode runs node programs of an npm project side by side and fails the
// test if any fails.
func runNode(t *testing.T, dir string, runs ...nodeRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Go(func() {
			node := exec.CommandContext(ctx, "node", r.args...)
			node.Dir = dir
			// The env resource detector alone: no host names or paths in the spans.
			node.Env = append(append(os.Environ(), "OTEL_NODE_RESOURCE_DETECTORS=env"), r.env...)
			if out, err := node.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("node %s: %v\n%s", strings.Join(r.args, " "), err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestLlamaIndexOpenLLMetry runs the LlamaIndex.TS pipeline of
// examples/llamaindex-openllmetry, traced by OpenLLMetry, three times:
// through the OTLP/HTTP JSON exporter (a request per span), the protobuf
// one and the OTLP/gRPC one (batched), all to `ragstat collect`. It checks the spans against the
// hand-worked pipeline, then what `ragstat import otlp` and `ragstat
// stages` make of them.
func TestLlamaIndexOpenLLMetry(t *testing.T) {
	dir := nodeProject(t, filepath.Join("..", "examples"), "llamaindex-openllmetry")
	bin := buildRagstat(t)
	spans := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, bin, spans)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.endpoint}
	runNode(t, dir, nodeRun{env, []string{"pipeline.mjs", "json", "li-json"}},
		nodeRun{env, []string{"pipeline.mjs", "proto", "li-proto"}},
		nodeRun{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + c.grpc}, []string{"pipeline.mjs", "grpc", "li-grpc"}})
	if msg := c.stop(t); !strings.Contains(msg, "(84 spans) written") || !strings.Contains(msg, ", 0 refused") {
		t.Errorf("collect said %q; want 84 spans, none refused", msg)
	}
	checkOpenLLMetrySpans(t, spans)
	// The packer's list is the context's, and the query engine's is the
	// list its postprocessors left, the context again: both are left out.
	stageArgs := []string{"--stage", "keyword_retriever.task=candidates", "--stage", "rerank.task=reranked",
		"--stage", "pack.task=-", "--stage", "retriever_query_engine.retrieve=-"}
	importExample(t, bin, spans, "openllmetry", stageArgs, "li-grpc", "li-json", "li-proto")
	checkExampleStages(t, bin, spans, "openllmetry", stageArgs, "li-grpc", "li-json", "li-proto")
}

// checkOpenLLMetrySpans checks the collected spans of the LlamaIndex.TS
// pipeline: per query, a trace of 7 spans that all carry the query id as
// an association property; the retriever's, reranker's and packer's task
// spans inside the query engine's retrieve span, their NodeWithScore[]
// outputs the hand-worked lists, and the chat span's answer.
func checkOpenLLMetrySpans(t *testing.T, path string) {
	t.Helper()
	requests, traces := readSpans(t, path)
	if requests["li-json"] != 28 || requests["li-proto"] < 1 || requests["li-proto"] > 28 || requests["li-grpc"] < 1 || requests["li-grpc"] > 28 {
		t.Errorf("requests per system: %v; want 28 from li-json (a span each), 1 to 28 from li-proto and li-grpc", requests)
	}
	for _, sys := range []string{"li-json", "li-proto", "li-grpc"} {
		byQuery := byQueryID(t, sys, traces[sys], 7, "traceloop.association.properties.query_id")
		for _, want := range examples {
			spans := byQuery[want.query]
			if spans == nil {
				t.Errorf("%s: no trace for %s", sys, want.query)
				continue
			}
			where := sys + " " + want.query
			retrieve := one(t, spans, "retriever_query_engine.retrieve")
			for _, name := range []string{"keyword_retriever.task", "rerank.task", "pack.task"} {
				s := one(t, spans, name)
				if s.parent != retrieve.id || s.attrs["traceloop.span.kind"] != "task" {
					t.Errorf("%s: %s is a %v span under %s, want a task under the query engine's retrieve", where, name, s.attrs["traceloop.span.kind"], s.parent)
				}
			}
			if got := nodesWithScore(t, one(t, spans, "keyword_retriever.task")); !slices.Equal(scoresOf(got), want.candidates) {
				t.Errorf("%s: candidates %v, want %v", where, scoresOf(got), want.candidates)
			}
			if got := nodesWithScore(t, one(t, spans, "rerank.task")); !slices.Equal(scoresOf(got), want.reranked) {
				t.Errorf("%s: reranked %v, want %v", where, scoresOf(got), want.reranked)
			}
			pack := one(t, spans, "pack.task")
			packed := nodesWithScore(t, pack)
			if got := textsOf(packed); !slices.Equal(got, want.context) || !slices.Equal(ids(scoresOf(packed)), want.contextIDs()) {
				t.Errorf("%s: packed %v %q, want %v %q", where, ids(scoresOf(packed)), got, want.contextIDs(), want.context)
			}
			if in, _ := pack.attrs["traceloop.entity.input"].(string); !strings.Contains(in, `"budget_tokens":28`) {
				t.Errorf("%s: the packer's input %q has no budget", where, in)
			}
			var chat span
			for _, s := range spans {
				if s.attrs["gen_ai.operation.name"] == "chat" {
					chat = s
				}
			}
			prompt := messageText(t, chat.attrs["gen_ai.input.messages"])
			for _, text := range want.context {
				if !strings.Contains(prompt, text+"\n") {
					t.Errorf("%s: the prompt %q lacks the context item %q", where, prompt, text)
				}
			}
			if got := messageText(t, chat.attrs["gen_ai.output.messages"]); got != want.answer {
				t.Errorf("%s: answer %q, want %q", where, got, want.answer)
			}
		}
	}
}

// byQueryID groups a system's traces by the query id the attribute key
// holds, which every span must carry, and checks each has n spans.
func byQueryID(t *testing.T, sys string, traces map[string][]span, n int, key string) map[string][]span {
	t.Helper()
	byQuery := map[string][]span{}
	for _, spans := range traces {
		if len(spans) != n {
			t.Errorf("%s: a trace of %d spans, want %d", sys, len(spans), n)
		}
		q := ""
		for _, s := range spans {
			id, _ := s.attrs[key].(string)
			if id == "" || q != "" && id != q {
				t.Fatalf("%s: span %s carries %s %q in a trace of %s", sys, s.name, key, id, q)
			}
			q = id
		}
		if byQuery[q] != nil {
			t.Errorf("%s: two traces for %s", sys, q)
		}
		byQuery[q] = spans
	}
	if len(byQuery) != len(examples) {
		t.Errorf("%s: traces for %d queries, want %d", sys, len(byQuery), len(examples))
	}
	return byQuery
}

// node is a LlamaIndex NodeWithScore as OpenLLMetry writes it.
type node struct {
	Node struct {
		ID   string `json:"id_"`
		Text string
	}
	Score float64
}

// nodesWithScore reads a task span's traceloop.entity.output.
func nodesWithScore(t *testing.T, s span) []node {
	t.Helper()
	raw, _ := s.attrs["traceloop.entity.output"].(string)
	var nodes []node
	if err := json.Unmarshal([]byte(raw), &nodes); err != nil {
		t.Fatalf("%s: traceloop.entity.output %q: %v", s.name, raw, err)
	}
	return nodes
}

func scoresOf(nodes []node) []scored {
	var out []scored
	for _, n := range nodes {
		out = append(out, scored{n.Node.ID, n.Score})
	}
	return out
}

func textsOf(nodes []node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Node.Text)
	}
	return out
}

// messageText is the text of GenAI messages (gen_ai.input.messages or
// gen_ai.output.messages, a JSON string): every text part, joined.
func messageText(t *testing.T, attr any) string {
	t.Helper()
	raw, _ := attr.(string)
	var msgs []struct {
		Parts []struct{ Type, Content string }
	}
	if err := json.Unmarshal([]byte(raw), &msgs); err != nil {
		t.Fatalf("messages %q: %v", raw, err)
	}
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == "text" {
				b.WriteString(p.Content)
			}
		}
	}
	return b.String()
}

// TestLangChainLangfuse runs the LangChain.js pipeline of
// examples/langchain-langfuse, traced by the Langfuse SDK, three times:
// through the SDK's own exporter (OTLP/HTTP JSON on Langfuse's path
// /api/public/otel/v1/traces) and OpenTelemetry's OTLP/HTTP JSON and
// protobuf exporters (on /v1/traces), all to `ragstat collect`; checks the spans against the hand-worked pipeline, then what
// `ragstat import otlp` and `ragstat stages` make of them.
func TestLangChainLangfuse(t *testing.T) {
	dir := nodeProject(t, filepath.Join("..", "examples"), "langchain-langfuse")
	bin := buildRagstat(t)
	spans := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, bin, spans)
	env := []string{"LANGFUSE_BASE_URL=" + c.endpoint}
	runNode(t, dir, nodeRun{env, []string{"pipeline.mjs", "json", "lf-json"}},
		nodeRun{env, []string{"pipeline.mjs", "proto", "lf-proto"}},
		nodeRun{env, []string{"pipeline.mjs", "langfuse", "lf-langfuse"}})
	if msg := c.stop(t); !strings.Contains(msg, "(120 spans) written") || !strings.Contains(msg, ", 0 refused") {
		t.Errorf("collect said %q; want 120 spans, none refused", msg)
	}
	checkLangfuseSpans(t, spans, "lf-json", "lf-langfuse", "lf-proto")
	checkExampleStages(t, bin, spans, "langfuse", []string{"--stage", "KeywordRetriever=candidates", "--stage", "ContextualCompressionRetriever=reranked"}, "lf-json", "lf-langfuse", "lf-proto")
}

// checkLangfuseSpans checks the collected spans of the LangChain.js
// pipeline traced by Langfuse: per query, a trace of 10 spans that all
// carry the query id in the run metadata; the keyword retriever inside the
// contextual compression retriever, their documents the hand-worked lists
// (the reranker's scores in metadata.relevanceScore), the packer's context
// and budget, and the model's answer.
func checkLangfuseSpans(t *testing.T, path string, systems ...string) {
	t.Helper()
	requests, traces := readSpans(t, path)
	for _, sys := range systems {
		// Batches of up to 8 spans.
		if requests[sys] < 5 || requests[sys] > 40 {
			t.Errorf("%d requests from %s, want 5 to 40", requests[sys], sys)
		}
		byQuery := byQueryID(t, sys, traces[sys], 10, "langfuse.observation.metadata.query_id")
		for _, want := range examples {
			spans := byQuery[want.query]
			if spans == nil {
				t.Errorf("%s: no trace for %s", sys, want.query)
				continue
			}
			where := sys + " " + want.query
			for _, s := range spans {
				if typ := s.attrs["langfuse.observation.type"]; typ != "span" && (typ != "generation" || s.name != "FakeListChatModel") {
					t.Errorf("%s: %s has observation type %v", where, s.name, typ)
				}
			}
			outer, inner := one(t, spans, "ContextualCompressionRetriever"), one(t, spans, "KeywordRetriever")
			if inner.parent != outer.id {
				t.Errorf("%s: the keyword retriever's span is not inside the compression retriever's", where)
			}
			if got := ids(langChainDocuments(t, inner)); !slices.Equal(got, ids(want.candidates)) {
				t.Errorf("%s: candidates %v, want %v", where, got, ids(want.candidates))
			}
			if got := langChainDocuments(t, outer); !slices.Equal(got, want.reranked) {
				t.Errorf("%s: reranked %v, want %v", where, got, want.reranked)
			}
			pack := one(t, spans, "pack")
			if got := pack.attrs["langfuse.observation.output"]; got != want.contextBlocks() {
				t.Errorf("%s: packed %q, want %q", where, got, want.contextBlocks())
			}
			if got := pack.attrs["langfuse.observation.metadata.budget_tokens"]; got != "28" && got != int64(28) {
				t.Errorf("%s: the packer's budget is %v (%T)", where, got, got)
			}
			var out struct{ Content string }
			raw, _ := one(t, spans, "FakeListChatModel").attrs["langfuse.observation.output"].(string)
			if err := json.Unmarshal([]byte(raw), &out); err != nil || out.Content != want.answer {
				t.Errorf("%s: the model's output %q, want the answer %q", where, raw, want.answer)
			}
		}
	}
}

// langChainDocuments reads the LangChain documents of a retriever span's
// langfuse.observation.output: ids, and the reranker's relevanceScore.
func langChainDocuments(t *testing.T, s span) []scored {
	t.Helper()
	raw, _ := s.attrs["langfuse.observation.output"].(string)
	var docs []struct {
		ID       string
		Metadata struct {
			ID             string
			RelevanceScore float64
		}
	}
	if err := json.Unmarshal([]byte(raw), &docs); err != nil {
		t.Fatalf("%s: langfuse.observation.output %q: %v", s.name, raw, err)
	}
	var out []scored
	for _, d := range docs {
		if d.ID != d.Metadata.ID {
			t.Errorf("%s: document id %q, metadata id %q", s.name, d.ID, d.Metadata.ID)
		}
		out = append(out, scored{d.ID, d.Metadata.RelevanceScore})
	}
	return out
}

// checkExampleStages imports the collected spans of an example pipeline
// (importExample) and checks the stages report of each system against
// examplesByHand.
func checkExampleStages(t *testing.T, bin, spans, convention string, stageArgs []string, systems ...string) {
	t.Helper()
	traces, judgments, topics, corpus := importExample(t, bin, spans, convention, stageArgs, systems...)
	out, _ := ragstat(t, bin, "stages", "-j", judgments, "--topics", topics, "--corpus", corpus, "--format", "json", traces)
	var res stagesResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	want := examplesByHand()
	var names []string
	for _, sys := range res.Result.Systems {
		names = append(names, sys.Name)
		var stages []string
		for _, st := range sys.Stages {
			stages = append(stages, st.Name)
			for _, q := range st.Eval.Queries {
				w := want[st.Name][q.Query]
				for i, m := range []string{"R", "RR", "nDCG"} {
					if got := q.Metrics[m]; math.Abs(got-w[i]) > 1e-12 {
						t.Errorf("%s %s %s: %s = %.6f, by hand %.6f", sys.Name, st.Name, q.Query, m, got, w[i])
					}
				}
			}
			if len(st.Eval.Queries) != len(examples) {
				t.Errorf("%s %s: %d queries", sys.Name, st.Name, len(st.Eval.Queries))
			}
		}
		if got := strings.Join(stages, " "); got != "candidates reranked context" {
			t.Errorf("%s: stages %s", sys.Name, got)
		}
		var loss []string
		for _, it := range sys.EvidenceLoss.Items {
			loss = append(loss, it.Query+" "+it.What+": "+it.Status)
		}
		slices.Sort(loss)
		if got, want := strings.Join(loss, "; "), "q1 p1: delivered; q1 p2: cut between candidates and reranked; "+
			"q1 p3: stale (not in effect at as_of); q1 p4: out of scope (not acceptable evidence); "+
			"q2 p1: truncated (span lost); q2 p2: delivered; q3 p7: not retrieved; q4 p6: delivered"; got != want {
			t.Errorf("%s: evidence stopped at\n%s\nwant\n%s", sys.Name, got, want)
		}
		if got := fmt.Sprint(sys.Context.TruncatedAway); got != "[{q2 p1}]" {
			t.Errorf("%s: truncated away %s", sys.Name, got)
		}
		if got := fmt.Sprint(sys.Validity.OutOfScope); got != "[{q1 candidates p4} {q1 reranked p4} {q1 context p4} {q2 candidates p4}]" {
			t.Errorf("%s: out of scope %s", sys.Name, got)
		}
		if got := fmt.Sprint(sys.Validity.Stale); got != "[{q1 candidates p3} {q1 reranked p3} {q1 context p3} {q2 candidates p3} {q2 reranked p3} {q2 context p3} {q4 candidates p3}]" {
			t.Errorf("%s: stale %s", sys.Name, got)
		}
		// Every query is answerable; q4 alone abstains, 1 of 4.
		if got := fmt.Sprint(sys.Answers.Cited, sys.Answers.CitedNotInContext, sys.Answers.FalseAbstentions, sys.Answers.FalseAbstention); got != "4 [{q2 p9}] 1 0.25" {
			t.Errorf("%s: citations and false abstentions %s, want 4 [{q2 p9}] 1 0.25", sys.Name, got)
		}
	}
	if slices.Sort(names); !slices.Equal(names, systems) {
		t.Errorf("systems %v, want %v", names, systems)
	}
}

// importExample imports the collected spans of an example pipeline (the
// texts from the corpus, to find the cut passages in the context), checks
// the import's summary, which must name the convention the spans were read
// under, and every trace's stages (checkImported). It returns the traces
// and the judgments, topics and corpus they are evaluated with.
func importExample(t *testing.T, bin, spans, convention string, stageArgs []string, systems ...string) (traces, judgments, topics, corpus string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	judgments, topics = exampleJudgments, exampleTopics
	corpus = write("corpus.jsonl", corpusOf(t, filepath.Join("..", "examples", "data.json")))
	traces = filepath.Join(dir, "traces.jsonl")
	args := append([]string{"import", "otlp", spans, "--corpus", corpus, "--abstain-pattern", abstainPattern, "--out", traces}, stageArgs...)
	_, msg := ragstat(t, bin, args...)
	n := len(systems) * len(examples)
	for _, want := range []string{fmt.Sprintf("imported %d traces", n), "conventions: " + convention,
		fmt.Sprintf("context items: %d packed whole, %d truncated, 0 dropped in packing", 7*len(systems), 3*len(systems))} {
		if !strings.Contains(msg, want) {
			t.Errorf("import said %q; want %q", msg, want)
		}
	}
	checkImported(t, traces)
	return traces, judgments, topics, corpus
}

// checkImported checks every imported trace against the hand-worked
// pipeline: the stages candidates, reranked and context (in any order:
// the stages report checks theirs), the lists, and the text kept of each
// context item, a cut passage's prefix.
func checkImported(t *testing.T, traces string) {
	t.Helper()
	data, err := os.ReadFile(traces)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]exampleQuery{}
	for _, e := range examples {
		want[e.query] = e
	}
	for line := range strings.Lines(string(data)) {
		var tr trace.Trace
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		w := want[tr.Query]
		var names []string
		for _, st := range tr.Stages {
			names = append(names, st.Name)
		}
		if slices.Sort(names); !slices.Equal(names, []string{"candidates", trace.ContextStage, "reranked"}) {
			t.Errorf("%s %s: stages %v", tr.System, tr.Query, names)
			continue
		}
		for name, list := range map[string][]string{"candidates": ids(w.candidates), "reranked": ids(w.reranked), trace.ContextStage: w.contextIDs()} {
			if got := tr.Stage(name).IDs(); !slices.Equal(got, list) {
				t.Errorf("%s %s: %s %v, want %v", tr.System, tr.Query, name, got, list)
			}
		}
		for i, it := range tr.Stage(trace.ContextStage).Items {
			if i < len(w.context) && (it.Text == nil || *it.Text != w.context[i]) {
				t.Errorf("%s %s %s: context text %v, want %q", tr.System, tr.Query, it.ID, it.Text, w.context[i])
			}
		}
	}
}
