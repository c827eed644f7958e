package traceimport

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
)

// passage is the text of a test document: long enough to be found in a
// prompt, and unlike any other's.
func passage(id string) string { return "Passage " + id + " says what it says about returns." }

// js writes v as a JSON string, as the clients write structured attributes.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// node is LlamaIndex's NodeWithScore.
func node(id string, score float64) map[string]any {
	return map[string]any{"node": map[string]any{"id_": id, "text": passage(id), "metadata": map[string]any{"doc": "d-" + id}}, "score": score}
}

// shape writes the traces written as one line each: the query, every
// stage as name=id,id (a score as id@score, a search step's calls as
// [id,id][id]), and the citations.
func shape(t *testing.T, out string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var tr trace.Trace
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		parts := []string{tr.Query}
		for _, st := range tr.Stages {
			var ids []string
			for _, it := range st.Items {
				if it.Score != nil {
					ids = append(ids, fmt.Sprintf("%s@%g", it.ID, *it.Score))
				} else {
					ids = append(ids, it.ID)
				}
			}
			p := st.Name + "=" + strings.Join(ids, ",")
			for _, c := range st.Calls {
				p += "[" + strings.Join(c.IDs, ",") + "]"
			}
			parts = append(parts, p)
		}
		if tr.Answer != nil {
			parts = append(parts, "cites="+strings.Join(tr.Answer.Citations, ","))
		}
		lines = append(lines, strings.Join(parts, " | "))
	}
	return strings.Join(lines, "\n")
}

// TestConventions maps one pipeline per convention, written as each
// client writes its spans, and checks the stages, the context and the
// citations worked out by hand, and the conventions counted.
func TestConventions(t *testing.T) {
	prompt := func(ids ...string) string {
		var b strings.Builder
		b.WriteString("Answer from the sources.\n")
		for _, id := range ids {
			b.WriteString("[" + id + "] " + passage(id) + "\n")
		}
		return b.String() + "Question: can I return a clearance item?"
	}
	genAIMessages := func(text string) string {
		return js([]any{map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": text}}}})
	}
	for _, tc := range []struct {
		name   string
		lines  string
		m      Mapping
		want   string
		counts string // the summary's conventions line
	}{
		{"openllmetry llamaindex", otlp(t,
			sp{"L", "l2", "l1", "vector_index_retriever.retrieve", 2, 10, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.input":  js(map[string]any{"args": []any{map[string]any{"query": "clearance returns"}}}),
				"traceloop.entity.output": js([]any{node("n1", 0.8), node("n2", 0.7), node("n3", 0.5)})}},
			sp{"L", "l3", "l1", "rerank.task", 11, 20, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.output": js([]any{node("n2", 0.95), node("n1", 0.3)})}},
			sp{"L", "l1", "l0", "retriever_query_engine.retrieve", 1, 30, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.output": js([]any{node("n2", 0.95), node("n1", 0.3)})}},
			sp{"L", "l4", "l0", "openai.chat", 31, 40, map[string]any{"gen_ai.operation.name": "chat",
				"gen_ai.input.messages":  genAIMessages(prompt("n2")),
				"gen_ai.output.messages": js([]any{map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "content": "No [n2]."}}}})}},
			sp{"L", "l0", "", "retriever_query_engine.query", 0, 50, map[string]any{"traceloop.span.kind": "workflow",
				"traceloop.association.properties.query_id": "q-llama",
				"traceloop.entity.output":                   js(map[string]any{"response": "No [n2].", "sourceNodes": []any{node("n2", 0.95)}})}}),
			Mapping{},
			"q-llama | vector_index_retriever.retrieve=n1@0.8,n2@0.7,n3@0.5 | rerank.task=n2@0.95,n1@0.3 | retriever_query_engine.retrieve=n2@0.95,n1@0.3 | context=n2 | cites=n2",
			"openllmetry (4 spans), genai (1 span)"},
		// OpenTelemetry JS stamps starts in whole milliseconds: pack.task
		// seems to end before keyword_retriever.task and rerank.task,
		// whose output is its input.
		{"openllmetry steps within one millisecond", otlp(t,
			sp{"M", "m4", "m1", "pack.task", 8, 9, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.input":  js(map[string]any{"args": []any{}, "kwargs": map[string]any{"nodes": []any{node("n2", 0.95), node("n1", 0.3)}, "budget_tokens": 28}}),
				"traceloop.entity.output": js([]any{node("n2", 0.95)})}},
			sp{"M", "m3", "m1", "rerank.task", 8, 11, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.input":  js(map[string]any{"args": []any{[]any{node("n1", 0.8), node("n2", 0.7), node("n3", 0.5)}, "clearance"}}),
				"traceloop.entity.output": js([]any{node("n2", 0.95), node("n1", 0.3)})}},
			sp{"M", "m2", "m1", "keyword_retriever.task", 2, 10, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.input":  js(map[string]any{"args": []any{"clearance"}}),
				"traceloop.entity.output": js([]any{node("n1", 0.8), node("n2", 0.7), node("n3", 0.5)})}},
			// The wrapper's output is its postprocessors' (here rerank's):
			// a span that holds pack.task is not its producer.
			sp{"M", "m1", "m0", "retriever_query_engine.retrieve", 1, 14, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.output": js([]any{node("n2", 0.95), node("n1", 0.3)})}},
			sp{"M", "m0", "", "retriever_query_engine.query", 0, 50, map[string]any{"traceloop.span.kind": "workflow",
				"traceloop.association.properties.query_id": "q-ms"}}),
			Mapping{Stages: map[string]string{"retriever_query_engine.retrieve": "-"}},
			"q-ms | keyword_retriever.task=n1@0.8,n2@0.7,n3@0.5 | rerank.task=n2@0.95,n1@0.3 | pack.task=n2@0.95",
			"openllmetry (5 spans)"},
		{"openllmetry vector store events and a legacy llm span", otlpEvents(t, map[string][]event{"v1": {
			{dbQueryResult, map[string]any{"db.query.result.id": "c1", "db.query.result.distance": 0.2, "db.query.result.document": passage("c1")}},
			{dbQueryResult, map[string]any{"db.query.result.id": "c2", "db.query.result.score": 0.4, "db.query.result.document": passage("c2")}}}},
			sp{"V", "v1", "v0", "chroma.query", 1, 5, map[string]any{"db.system": "chroma"}},
			sp{"V", "v2", "v0", "openai.chat", 6, 9, map[string]any{"llm.request.type": "chat",
				"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": prompt("c2", "c1"), "gen_ai.completion.0.content": "Yes [c1]."}},
			sp{"V", "v0", "", "rag", 0, 10, map[string]any{"traceloop.span.kind": "workflow", "traceloop.association.properties.query_id": "q-chroma"}}),
			Mapping{},
			"q-chroma | chroma.query=c1,c2@0.4 | context=c2,c1 | cites=c1",
			"openllmetry (3 spans)"},
		// OpenLLMetry's tasks carry whatever the function returned: here
		// LangChain documents (JS, and serialised from Python) and a plain
		// list of {id, score, text}.
		{"openllmetry document shapes", otlp(t,
			sp{"D", "d1", "d0", "retriever.task", 1, 5, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.output": js([]any{
					map[string]any{"pageContent": passage("d1"), "metadata": map[string]any{"id": "d1"}},
					map[string]any{"lc": 1, "type": "constructor", "id": []any{"langchain", "schema", "document", "Document"},
						"kwargs": map[string]any{"page_content": passage("d2"), "metadata": map[string]any{"id": "d2", "relevance_score": 0.6}}}})}},
			sp{"D", "d2", "d0", "search.task", 6, 9, map[string]any{"traceloop.span.kind": "task",
				"traceloop.entity.output": js([]any{map[string]any{"id": "e1", "score": 0.5, "text": passage("e1")}})}},
			sp{"D", "d0", "", "rag.workflow", 0, 10, map[string]any{"traceloop.span.kind": "workflow",
				"traceloop.association.properties.query_id": "q-shapes"}}),
			Mapping{ItemID: "metadata.id"},
			"q-shapes | retriever.task=d1,d2@0.6 | search.task=e1@0.5",
			"openllmetry (3 spans)"},
		// The Langfuse SDK puts trace-level metadata on the root span.
		{"langfuse query id from the trace's metadata", otlp(t,
			sp{"T", "t1", "t0", "search", 1, 5, map[string]any{"langfuse.observation.type": "retriever",
				"langfuse.observation.output": js([]any{map[string]any{"id": "k1", "pageContent": passage("k1")}})}},
			sp{"T", "t0", "", "handler", 0, 9, map[string]any{"langfuse.observation.type": "span",
				"langfuse.trace.metadata.query_id": "q-trace-meta"}}),
			Mapping{},
			"q-trace-meta | search=k1",
			"langfuse (2 spans)"},
		{"langfuse langchain", otlp(t,
			sp{"F", "f1", "f2", "VectorStoreRetriever", 1, 10, map[string]any{"langfuse.observation.type": "span",
				"langfuse.observation.input": js("clearance returns"),
				"langfuse.observation.output": js([]any{
					map[string]any{"pageContent": passage("p1"), "metadata": map[string]any{"id": "p1"}, "id": "p1"},
					map[string]any{"pageContent": passage("p2"), "metadata": map[string]any{"id": "p2"}, "id": "p2"},
					map[string]any{"pageContent": passage("p3"), "metadata": map[string]any{"id": "p3"}, "id": "p3"}})}},
			sp{"F", "f2", "f0", "ContextualCompressionRetriever", 1, 20, map[string]any{"langfuse.observation.type": "span",
				"langfuse.observation.output": js([]any{
					map[string]any{"pageContent": passage("p2"), "metadata": map[string]any{"id": "p2", "relevanceScore": 0.93}},
					map[string]any{"pageContent": passage("p1"), "metadata": map[string]any{"id": "p1", "relevanceScore": 0.41}}})}},
			sp{"F", "f3", "f0", "FakeListChatModel", 21, 30, map[string]any{"langfuse.observation.type": "generation",
				"langfuse.observation.input":         js([]any{map[string]any{"role": "user", "content": prompt("p2", "p1")}}),
				"langfuse.observation.output":        js(map[string]any{"role": "assistant", "content": "No [p2]."}),
				"langfuse.observation.model.name":    "fake",
				"langfuse.observation.usage_details": js(map[string]any{"input": 55, "output": 4})}},
			sp{"F", "f0", "", "RunnableSequence", 0, 40, map[string]any{"langfuse.observation.type": "span", "session.id": "q-lf",
				"langfuse.observation.output": js("No [p2].")}}),
			Mapping{ItemID: "metadata.id"},
			"q-lf | VectorStoreRetriever=p1,p2,p3 | ContextualCompressionRetriever=p2@0.93,p1@0.41 | context=p2,p1 | cites=p2",
			"langfuse (4 spans)"},
		{"genai datastore tool called twice", otlp(t,
			sp{"G", "g1", "g0", "execute_tool search_kb", 1, 5, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "datastore",
				"gen_ai.tool.call.arguments": js(map[string]any{"query": "clearance"}),
				"gen_ai.tool.call.result":    js([]any{map[string]any{"id": "k1", "score": 0.9, "content": passage("k1")}, map[string]any{"id": "k2", "score": 0.7, "content": passage("k2")}})}},
			sp{"G", "g2", "g0", "execute_tool search_kb", 6, 10, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "datastore",
				"gen_ai.tool.call.arguments": js(map[string]any{"query": "final sale returns"}),
				"gen_ai.tool.call.result":    js([]any{map[string]any{"id": "k2", "score": 0.8, "content": passage("k2")}, map[string]any{"id": "k3", "score": 0.6, "content": passage("k3")}})}},
			sp{"G", "g3", "g0", "execute_tool calculator", 11, 12, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function"}},
			sp{"G", "g4", "g0", "chat gpt", 13, 20, map[string]any{"gen_ai.operation.name": "chat",
				"gen_ai.input.messages":  genAIMessages(prompt("k3", "k1")),
				"gen_ai.output.messages": js([]any{map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "content": "No [k3]."}}}})}},
			sp{"G", "g0", "", "invoke_agent support", 0, 30, map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "q-genai"}}),
			Mapping{},
			"q-genai | execute_tool search_kb=k1@0.9,k2@0.7,k3@0.6[k1,k2][k2,k3] | context=k3,k1 | cites=k3",
			"genai (5 spans)"},
		{"genai retrieval with its query and top k", otlp(t,
			sp{"R", "r1", "r0", "retrieval kb", 1, 5, map[string]any{"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "clearance",
				"gen_ai.data_source.id": "kb", "gen_ai.request.top_k": 2,
				"gen_ai.retrieval.documents": js([]any{map[string]any{"id": "k1", "score": 0.9}, map[string]any{"id": "k2"}})}},
			sp{"R", "r0", "", "invoke_workflow", 0, 9, map[string]any{"gen_ai.operation.name": "invoke_workflow", "gen_ai.conversation.id": "q-r"}}),
			Mapping{},
			"q-r | retrieval kb=k1@0.9,k2",
			"genai (2 spans)"},
		{"openinference reranker with its input documents", otlp(t,
			sp{"O", "o1", "o0", "rerank", 1, 5, map[string]any{"openinference.span.kind": "RERANKER",
				"reranker.input_documents.0.document.id": "a", "reranker.input_documents.1.document.id": "b", "reranker.input_documents.2.document.id": "c",
				"reranker.output_documents.0.document.id": "c", "reranker.output_documents.0.document.score": 2.5,
				"reranker.output_documents.1.document.id": "a", "reranker.output_documents.1.document.score": 1.5}},
			root("O", "o0", 9, "q-oi")),
			Mapping{},
			"q-oi | rerank input=a,b,c | rerank=c@2.5,a@1.5",
			"openinference (2 spans)"},
		{"a documents rule", otlp(t,
			sp{"U", "u1", "u0", "custom.search", 1, 5, map[string]any{"my.hits": js(map[string]any{"hits": []any{
				map[string]any{"doc": map[string]any{"id": "x1", "text": passage("x1")}}, map[string]any{"doc": map[string]any{"id": "x2"}}}})}},
			root("U", "u0", 9, "q-user")),
			Mapping{Documents: []DocumentsRule{{Span: "custom.search", Attribute: "my.hits", Path: "$.hits[*].doc"}}},
			"q-user | custom.search=x1,x2",
			"documents mapping (1 span), openinference (1 span)"},
		{"both conventions, detected", otlp(t,
			sp{"B", "b1", "b0", "both", 1, 5, map[string]any{"openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.id": "oi",
				"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": js([]any{map[string]any{"id": "ga"}})}},
			root("B", "b0", 9, "q-both")),
			Mapping{},
			"q-both | both=oi",
			"openinference (2 spans)"},
		{"both conventions, genai forced", otlp(t,
			sp{"B", "b1", "b0", "both", 1, 5, map[string]any{"openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.id": "oi",
				"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": js([]any{map[string]any{"id": "ga"}})}},
			sp{"B", "b0", "", "root", 0, 9, map[string]any{"gen_ai.operation.name": "invoke_workflow", "gen_ai.conversation.id": "q-both"}}),
			Mapping{Convention: GenAI},
			"q-both | both=ga",
			"genai (2 spans)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, man, err := run(t, OTLP, tc.m, input.FromBytes("c.jsonl", []byte(tc.lines)))
			if err != nil {
				t.Fatal(err)
			}
			if got := shape(t, out); got != tc.want {
				t.Errorf("traces\n%s\nwant\n%s", got, tc.want)
			}
			if !strings.Contains(man.Summary(), "conventions: "+tc.counts+"\n") {
				t.Errorf("summary wants conventions: %s\n%s", tc.counts, man.Summary())
			}
			checkReadable(t, out)
		})
	}
}

// TestTurns: traces sharing a session are turns of one conversation,
// numbered in the order they close; by default a turn after the first
// whose query id is the session's is SESSION#N; the query text each
// retrieval recorded is kept.
func TestTurns(t *testing.T) {
	turn := func(tr, q, query string, metaQuery string) string {
		r := retriever(tr, tr+"1", tr+"0", "r", 5, "d1")
		r.attrs["input.value"] = query
		root := root(tr, tr+"0", 20, q)
		if metaQuery != "" {
			root.attrs["metadata"] = js(map[string]any{"query_id": metaQuery})
		}
		return otlp(t, r, root)
	}
	lines := turn("A", "s1", "refund policy", "") + turn("B", "s1", "and for clearance items?", "") + turn("C", "s2", "gift cards", "") +
		turn("D", "s1", "thanks", "q-thanks")
	out, _, err := run(t, OTLP, Mapping{CloseAfter: 1}, input.FromBytes("t.jsonl", []byte(lines)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var tr trace.Trace
		var meta traceMeta
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(tr.Meta, &meta); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s/%d %v", tr.Query, tr.Conversation, tr.Turn, meta.Stages["r"].Queries))
	}
	want := "s1 s1/1 [refund policy]; s1#2 s1/2 [and for clearance items?]; s2 s2/1 [gift cards]; q-thanks s1/3 [thanks]"
	if strings.Join(got, "; ") != want {
		t.Errorf("turns\n%s\nwant\n%s", strings.Join(got, "; "), want)
	}
}

// TestPackedNodes: an item whose span text is a strict prefix of its
// corpus text (a packer cut it, as LlamaIndex's nodes carry it) is found
// truncated in the context, not packed whole; one whose span text is its
// corpus text is packed whole.
func TestPackedNodes(t *testing.T) {
	c, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(
		`{"id":"n1","text":"`+passage("n1")+` And a second sentence the packer cut."}`+"\n"+`{"id":"n2","text":"`+passage("n2")+`"}`+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	lines := otlp(t,
		sp{"P", "p1", "p0", "pack.task", 1, 5, map[string]any{"traceloop.span.kind": "task",
			"traceloop.entity.output": js([]any{node("n1", 1), node("n2", 0.5)})}},
		sp{"P", "p2", "p0", "chat", 6, 9, map[string]any{"gen_ai.operation.name": "chat",
			"gen_ai.input.messages": js([]any{map[string]any{"role": "user", "content": passage("n1") + "\n" + passage("n2")}})}},
		sp{"P", "p0", "", "query", 0, 10, map[string]any{"traceloop.span.kind": "workflow", "traceloop.association.properties.query_id": "q"}})
	_, man, err := run(t, OTLP, Mapping{Corpus: c}, input.FromBytes("p.jsonl", []byte(lines)))
	if err != nil {
		t.Fatal(err)
	}
	if man.Context != (ContextCounts{Packed: 1, Truncated: 1}) {
		t.Errorf("context %+v, want n2 packed whole and n1 truncated", man.Context)
	}
}

// TestDocumentsRuleInExports: a documents rule reads an export's field
// by a dotted name: a LangSmith run of a tool that searched, whose
// outputs hold the hits.
func TestDocumentsRuleInExports(t *testing.T) {
	runs := `{"id":"r0","run_type":"chain","name":"agent","extra":{"metadata":{"query_id":"q"}}}
{"id":"r1","trace_id":"r0","parent_run_id":"r0","run_type":"tool","name":"search","outputs":{"result":{"hits":[{"id":"a","score":2},{"id":"b","score":1}]}}}
`
	out, man, err := run(t, LangSmith, Mapping{Documents: []DocumentsRule{{Span: "search", Attribute: "outputs.result", Path: "$.hits"}}},
		input.FromBytes("runs.jsonl", []byte(runs)))
	if err != nil {
		t.Fatal(err)
	}
	if got := shape(t, out); got != "q | search=a@2,b@1" {
		t.Errorf("traces %s, want q | search=a@2,b@1", got)
	}
	if man.Conventions != nil {
		t.Errorf("an export counts no conventions: %v", man.Conventions)
	}
}
