package traceimport

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/golden"
	"github.com/ragstat/ragstat/trace"
)

// run imports files and returns the traces written, one JSON line each.
func run(t *testing.T, f Format, m Mapping, files ...*input.File) (string, *Manifest, error) {
	t.Helper()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	man, err := Import(f, files, m, func(tr *trace.Trace) error { return enc.Encode(tr) })
	return out.String(), man, err
}

func fixture(t *testing.T, name string) *input.File {
	t.Helper()
	f, err := input.Open(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestFixtures maps each convention's fixture (written from its
// specification) and compares the traces and the summary with golden files.
func TestFixtures(t *testing.T) {
	for _, tc := range []struct {
		file   string
		format Format
		m      Mapping
	}{
		{"openinference.otlp.jsonl", OTLP, Mapping{ItemID: "metadata.id", Abstain: `cannot find`}},
		{"genai.otlp.json", OTLP, Mapping{}},
		{"langsmith.jsonl", LangSmith, Mapping{ItemID: "metadata.chunk_id", ItemScore: "metadata.relevance_score"}},
		{"langfuse.json", Langfuse, Mapping{System: "rag-v3", ItemScore: "metadata.score", Names: func(o string) string { return "--" + o }}},
		// Captured from the real clients (LlamaIndex.TS traced by OpenLLMetry,
		// LangChain.js traced by the Langfuse SDK), two queries each.
		{"llamaindex-openllmetry.otlp.jsonl", OTLP, Mapping{Abstain: "cannot answer", CloseAfter: EndOfInput}},
		{"langchain-langfuse.otlp.jsonl", OTLP, Mapping{Abstain: "cannot answer", CloseAfter: EndOfInput}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out, man, err := run(t, tc.format, tc.m, fixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.file+".golden"), out+"\n"+man.Summary())
			format, err := Detect(fixture(t, tc.file))
			if err != nil || format != tc.format {
				t.Errorf("Detect = %q, %v; want %q", format, err, tc.format)
			}
			checkReadable(t, out)
		})
	}
}

// checkReadable reads the written traces back with the trace package.
func checkReadable(t *testing.T, out string) {
	t.Helper()
	if _, err := trace.Read(input.FromBytes("out.jsonl", []byte(out))); err != nil {
		t.Errorf("written traces do not read back: %v", err)
	}
}

// TestProtobufAndGzip: the same spans as one protobuf body, plain or
// gzipped, map to the same traces as the OTLP/JSON lines.
func TestProtobufAndGzip(t *testing.T) {
	data, err := os.ReadFile("testdata/openinference.otlp.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	all := ptrace.NewTraces()
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
		if err != nil {
			t.Fatal(err)
		}
		td.ResourceSpans().MoveAndAppendTo(all.ResourceSpans())
	}
	body, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(all)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	m := Mapping{ItemID: "metadata.id"}
	want, _, err := run(t, OTLP, m, fixture(t, "openinference.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"spans.pb": body, "spans.pb.gz": gz.Bytes(), "spans.json.gz": gzipped(data)} {
		got, _, err := run(t, OTLP, m, input.FromBytes(name, b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s maps differently:\n%s\nwant\n%s", name, got, want)
		}
		if f, _ := Detect(input.FromBytes(name, b)); f != OTLP {
			t.Errorf("%s detected as %q", name, f)
		}
	}
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// sp describes a span for the tests that build OTLP input.
type sp struct {
	trace, id, parent, name string
	start, end              int64 // milliseconds
	attrs                   map[string]any
}

// otlp writes one OTLP/JSON line holding spans.
func otlp(t *testing.T, spans ...sp) string {
	t.Helper()
	return otlpEvents(t, nil, spans...)
}

// otlpEvents writes one OTLP/JSON line holding spans, with the events
// given by span id: each an event's name and attributes.
func otlpEvents(t *testing.T, events map[string][]event, spans ...sp) string {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "svc")
	ss := rs.ScopeSpans().AppendEmpty()
	for _, s := range spans {
		out := ss.Spans().AppendEmpty()
		out.SetTraceID(traceID(s.trace))
		out.SetSpanID(spanID(s.id))
		if s.parent != "" {
			out.SetParentSpanID(spanID(s.parent))
		}
		out.SetName(s.name)
		out.SetStartTimestamp(pcommon.Timestamp(s.start * 1e6))
		out.SetEndTimestamp(pcommon.Timestamp(s.end * 1e6))
		if err := out.Attributes().FromRaw(s.attrs); err != nil {
			t.Fatal(err)
		}
		for _, e := range events[s.id] {
			ev := out.Events().AppendEmpty()
			ev.SetName(e.name)
			if err := ev.Attributes().FromRaw(e.attrs); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// event is a span event for otlpEvents.
type event struct {
	name  string
	attrs map[string]any
}

func traceID(s string) (id pcommon.TraceID) {
	copy(id[:], s)
	return id
}

func spanID(s string) (id pcommon.SpanID) {
	copy(id[:], s)
	return id
}

func retriever(tr, id, parent, name string, end int64, docs ...string) sp {
	a := map[string]any{"openinference.span.kind": "RETRIEVER"}
	for i, d := range docs {
		a["retrieval.documents."+itoa(i)+".document.id"] = d
		a["retrieval.documents."+itoa(i)+".document.content"] = "text of " + d + ", long enough to be found"
	}
	return sp{tr, id, parent, name, end - 5, end, a}
}

func llm(tr, id, parent string, end int64, prompt, answer string) sp {
	return sp{tr, id, parent, "llm", end - 5, end, map[string]any{"openinference.span.kind": "LLM",
		"llm.input_messages.0.message.content": prompt, "llm.output_messages.0.message.content": answer}}
}

func root(tr, id string, end int64, query string) sp {
	return sp{tr, id, "", "chain", 0, end, map[string]any{"openinference.span.kind": "CHAIN", "session.id": query}}
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestClosing: a trace closes CloseAfter records after it is complete, so
// it is written before the input ends; a span that comes later is
// reported, and a trace whose parent never comes is closed at the end.
func TestClosing(t *testing.T) {
	lines := otlp(t, retriever("A", "a1", "a0", "r", 10, "d1")) +
		otlp(t, root("A", "a0", 20, "q1")) +
		otlp(t, retriever("B", "b1", "b0", "r", 30, "d1")) + // A closes after this record
		otlp(t, retriever("A", "a2", "a0", "r2", 40, "d2")) + // too late for A
		otlp(t, root("B", "b0", 50, "q2")) +
		otlp(t, retriever("C", "c1", "c9", "r", 60, "d1")) // C's parent never comes
	var queries []string
	man, err := Import(OTLP, []*input.File{input.FromBytes("s.jsonl", []byte(lines))}, Mapping{CloseAfter: 1},
		func(tr *trace.Trace) error {
			queries = append(queries, tr.Query)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(queries, " "); man.Traces != 3 || got != "q1 q2 "+traceHex("C") {
		t.Fatalf("traces written %q, want q1 q2 and C's", got)
	}
	if !strings.Contains(man.Summary(), "1 span after its trace closed (not written): r2 (first at s.jsonl:4)") {
		t.Errorf("summary lacks the late span:\n%s", man.Summary())
	}
	if !strings.Contains(man.Summary(), "1 trace whose spans name a parent never read") {
		t.Errorf("summary lacks the missing parent:\n%s", man.Summary())
	}
	// The same input kept open to the end of input merges the late span.
	out, man, err := run(t, OTLP, Mapping{CloseAfter: EndOfInput}, input.FromBytes("s.jsonl", []byte(lines)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"name":"r2"`) || strings.Contains(man.Summary(), "closed") {
		t.Errorf("kept open to the end, the late span should join its trace:\n%s\n%s", out, man.Summary())
	}
}

// traceHex is the hex id of a test trace id.
func traceHex(s string) string { id := traceID(s); return id.String() }

// TestProblems: every kind of problem is counted with the span names, and
// under Strict is an error naming the file, line and span.
func TestProblems(t *testing.T) {
	ctx := "text of d1, long enough to be found"
	for _, tc := range []struct {
		name  string
		lines string
		kind  Kind
		names string
	}{
		{"unknown kind", otlp(t, root("A", "a0", 20, "q"), sp{"A", "a1", "a0", "GET /x", 1, 2, map[string]any{"http.method": "GET"}}, retriever("A", "a2", "a0", "r", 5, "d1")),
			UnknownKind, "GET /x (no convention's attributes)"},
		{"no documents", otlp(t, root("A", "a0", 20, "q"), retriever("A", "a1", "a0", "empty", 5), llm("A", "a2", "a0", 10, ctx, "x")), NoDocuments, "empty"},
		{"no id", otlp(t, root("A", "a0", 20, "q"), sp{"A", "a1", "a0", "r", 1, 2, map[string]any{"openinference.span.kind": "RETRIEVER",
			"retrieval.documents.0.document.content": "some passage"}}), NoItemID, "r"},
		{"no generator", otlp(t, root("A", "a0", 20, "q"), retriever("A", "a1", "a0", "r", 5, "d1")), NoGenerator, "trace 41000000000000000000000000000000"},
		{"no query id", otlp(t, sp{"A", "a0", "", "chain", 0, 9, map[string]any{"openinference.span.kind": "CHAIN"}}, retriever("A", "a1", "a0", "r", 5, "d1")), NoQueryID, "trace 41000000000000000000000000000000"},
		{"repeated span", otlp(t, root("A", "a0", 20, "q"), retriever("A", "a1", "a0", "r", 5, "d1"), retriever("A", "a1", "a0", "r", 5, "d1")), RepeatedSpan, "r"},
		{"repeated item", otlp(t, root("A", "a0", 20, "q"), retriever("A", "a1", "a0", "r", 5, "d1", "d1")), RepeatedItem, "r: d1"},
		{"unknown citation", otlp(t, root("A", "a0", 20, "q"), retriever("A", "a1", "a0", "r", 5, "d1"), llm("A", "a2", "a0", 10, ctx, "see [d9]")), UnknownCitation, `"d9"`},
		{"nothing to map", otlp(t, root("A", "a0", 20, "q")), Empty, "trace 41000000000000000000000000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, man, err := run(t, OTLP, Mapping{}, input.FromBytes("p.jsonl", []byte(tc.lines)))
			var none *NothingMappedError
			if tc.kind == NoDocuments || tc.kind == Empty {
				if !errors.As(err, &none) {
					t.Errorf("no retrieval list mapped: want a NothingMappedError, got %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			var found *Problem
			for i := range man.Problems {
				if man.Problems[i].Kind == tc.kind {
					found = &man.Problems[i]
				}
			}
			if found == nil || found.Count != 1 || strings.Join(found.Names, "; ") != tc.names || found.First != "p.jsonl:1" {
				t.Fatalf("want 1 %q naming %q at p.jsonl:1, got %+v", tc.kind, tc.names, man.Problems)
			}
			_, _, err = run(t, OTLP, Mapping{Strict: true}, input.FromBytes("p.jsonl", []byte(tc.lines)))
			var de *diag.Error
			if !errors.As(err, &de) || de.File != "p.jsonl" || de.Line != 1 || !strings.Contains(err.Error(), string(tc.kind)) {
				t.Errorf("strict: want an error at p.jsonl:1 naming %q, got %v", tc.kind, err)
			}
		})
	}
}

// TestStageOrder: a retriever inside another is the earlier stage even
// when both end together; otherwise stages follow end times. Renames and
// omissions apply by span name.
func TestStageOrder(t *testing.T) {
	outer := retriever("A", "a1", "a0", "outer", 9, "d1")
	inner := retriever("A", "a2", "a1", "inner", 9, "d1", "d2")
	late := retriever("A", "a3", "a0", "first-started", 12, "d1")
	late.start = 0
	lines := otlp(t, late, outer, inner, root("A", "a0", 20, "q"), llm("A", "a4", "a0", 15, "text of d1, long enough to be found", "ok"))
	out, _, err := run(t, OTLP, Mapping{Stages: map[string]string{"outer": "reranked", "first-started": "-"}}, input.FromBytes("s.jsonl", []byte(lines)))
	if err != nil {
		t.Fatal(err)
	}
	if got := stageNames(t, out); got != "inner reranked context" {
		t.Errorf("stages %q, want inner reranked context", got)
	}
}

// TestStageOrderSkew: a retriever inside another is the earlier stage even
// when its recorded end is later than the outer one's, as OpenTelemetry
// JS's mixed clocks make it; a third retriever nested in the inner one
// comes first, and one beside them keeps its place by end time.
func TestStageOrderSkew(t *testing.T) {
	outer := retriever("A", "a1", "a0", "outer", 9, "d1")
	inner := retriever("A", "a2", "a1", "inner", 10, "d1", "d2")
	innermost := retriever("A", "a5", "a2", "innermost", 11, "d1", "d2", "d3")
	before := retriever("A", "a3", "a0", "before", 8, "d1")
	lines := otlp(t, outer, inner, innermost, before, root("A", "a0", 20, "q"), llm("A", "a4", "a0", 15, "text of d1, long enough to be found", "ok"))
	out, _, err := run(t, OTLP, Mapping{}, input.FromBytes("s.jsonl", []byte(lines)))
	if err != nil {
		t.Fatal(err)
	}
	if got := stageNames(t, out); got != "before innermost inner outer context" {
		t.Errorf("stages %q, want before innermost inner outer context", got)
	}
}

// stageNames lists, space-separated, the stages of the one trace in out.
func stageNames(t *testing.T, out string) string {
	t.Helper()
	var tr trace.Trace
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range tr.Stages {
		names = append(names, s.Name)
	}
	return strings.Join(names, " ")
}

// TestDuplicateQuery: two traces for one query and system are an error
// naming both trace ids (the query id given: by default, traces sharing a
// session are turns, TestTurns).
func TestDuplicateQuery(t *testing.T) {
	lines := otlp(t, root("A", "a0", 20, "q"), retriever("A", "a1", "a0", "r", 5, "d1")) +
		otlp(t, root("B", "b0", 20, "q"), retriever("B", "b1", "b0", "r", 5, "d1"))
	_, _, err := run(t, OTLP, Mapping{QueryID: "session.id"}, input.FromBytes("d.jsonl", []byte(lines)))
	if err == nil || !strings.Contains(err.Error(), "d.jsonl:2") || !strings.Contains(err.Error(), "41000000000000000000000000000000 and 42000000000000000000000000000000") {
		t.Errorf("want the second trace of query q named, got %v", err)
	}
}

func TestLocate(t *testing.T) {
	body := "Clearance items are final sale and cannot be returned."
	for _, tc := range []struct {
		text, kept string
		at         int
	}{
		{"ctx: " + body + " more", body, 5},
		{"ctx: Clearance items are final sale and cann", "Clearance items are final sale and cann", 5},
		{"ctx: Clearance items are final", "Clearance items are final", 5},
		{"ctx: Clearance items are", "", -1}, // 19 characters: too short to count
		{"nothing here", "", -1},
		{"ctx: Clearance items are final s\u00e9", "Clearance items are final s", 5},
	} {
		kept, at := locate(tc.text, body)
		if kept != tc.kept || at != tc.at {
			t.Errorf("locate(%q) = %q, %d; want %q, %d", tc.text, kept, at, tc.kept, tc.at)
		}
	}
	if kept, at := locate("Größe ist über alles wichtig, immer", "Größe ist über alles wichtig, niemals"); kept != "Größe ist über alles wichtig, " || at != 0 {
		t.Errorf("multi-byte prefix: %q %d", kept, at)
	}
}

func TestMappingErrors(t *testing.T) {
	for _, tc := range []struct {
		m    Mapping
		want string
	}{
		{Mapping{System: "a", SystemFrom: "b"}, "not both"},
		{Mapping{ItemID: "id"}, "metadata.KEY"},
		{Mapping{ItemScore: "metadata."}, "metadata.KEY"},
		{Mapping{QueryID: "metadata."}, "name the key"},
		{Mapping{Stages: map[string]string{"r": "context"}}, "packed context"},
		{Mapping{Citation: "("}, "citation_pattern"},
		{Mapping{Abstain: "["}, "abstain_pattern"},
		{Mapping{CloseAfter: -2}, "close-after"},
	} {
		_, _, err := run(t, OTLP, tc.m, input.FromBytes("x", []byte("{}\n")))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.m, err, tc.want)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		data string
		want Format
	}{
		{`{"query":"q","system":"s","stages":[]}`, ""},
		{"q1 Q0 d1 1 2.5 run\n", ""},
		{`[{"id":"r1","run_type":"chain"}]`, LangSmith},
		{`{"id":"o1","traceId":"t","type":"SPAN"}`, Langfuse},
		{`{"data":[{"id":"o1","traceId":"t","type":"SPAN"}]}`, Langfuse},
		{`{"resourceSpans":[]}`, OTLP},
	} {
		if got, err := Detect(input.FromBytes("x", []byte(tc.data))); err != nil || got != tc.want {
			t.Errorf("Detect(%s) = %q, %v; want %q", tc.data, got, err, tc.want)
		}
	}
}

func TestMalformed(t *testing.T) {
	for _, tc := range []struct {
		format     Format
		data, want string
	}{
		{OTLP, "{\"resourceSpans\":[]}\nnot json\n", "m:2: not an OTLP/JSON traces request"},
		{OTLP, "{\"resourceSpans\":[]}\n\n{\"resourceSpans\":[]}\n", "m:2: blank line"},
		{OTLP, "\x0a\x05garbage", "m: not OTLP"},
		{OTLP, "\x12\x03abc", "m: not OTLP: neither JSON nor an OTLP protobuf body with spans: no spans"},
		{OTLP, `{"data":[{"id":"o","traceId":"t","type":"SPAN"}]}` + "\n", "m:1: not an OTLP/JSON traces request: no resourceSpans"},
		{LangSmith, `{"id":"r","run_type":"llm","start_time":"yesterday"}` + "\n", `m:1: "start_time": yesterday is not a time`},
		{LangSmith, `{"id":"r","run_type":"llm","parent_run_id":"p"}` + "\n", "m:1: run r has a parent but no trace_id"},
		{Langfuse, `{"id":"o","type":"SPAN"}` + "\n", `m:1: missing or empty "traceId"`},
		{Langfuse, `[1]`, "m:1: not a JSON object"},
		{OTLP, "{\"resourceSpans\":[],\n\"resourceSpans\":[]}", `m:2: key "resourceSpans" given twice in one object`},
		{OTLP, "{\"resourceSpans\":[]}\n{\"resourceSpans\":[],\"resourceSpans\":[]}\n", `m:2: key "resourceSpans" given twice`},
		{OTLP, otlp(t, sp{"A", "a1", "", "r", 1, 2, map[string]any{"openinference.span.kind": "CHAIN", "metadata": `{"query_id":"q1","query_id":"q2"}`}}),
			`m:1: attribute "metadata" holds JSON: key "query_id" given twice in one object`},
		{LangSmith, `{"id":"r","id":"s","run_type":"llm"}` + "\n", `m:1: key "id" given twice in one object`},
		{Langfuse, "[{\"id\":\"o\",\n\"id\":\"p\"}]", `m:2: key "id" given twice in one object in "/0"`},
		{OTLP, "{\"resourceSpans\":[]}\n{\"resourceSp", "m:2: last line incomplete: a writer stopped mid-line; 1 complete lines imported"},
		{LangSmith, `{"id":"r","run_type":"llm","start_time":"yesterday"}` + "\n{\"id\":", "m:2: last line incomplete"},
	} {
		_, _, err := run(t, tc.format, Mapping{}, input.FromBytes("m", []byte(tc.data)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: got %v, want %q", tc.format, tc.data, err, tc.want)
		}
	}
}

// TestParallelLines: over many batches, results come back in line order
// and errors are gathered in line order up to diag.Max, whatever the
// workers' timing.
func TestParallelLines(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		b.WriteString(strings.Repeat("x", 300+i%7))
		if i%97 == 0 {
			b.WriteString(" bad")
		}
		b.WriteByte('\n')
	}
	f := input.FromBytes("p", []byte(b.String()))
	for _, workers := range []int{1, 2, 7} {
		var seen []int
		err := parallelLines(f, workers, func(line int, data []byte) (int, error) {
			if bytes.HasSuffix(data, []byte(" bad")) {
				return 0, &diag.Error{File: "p", Line: line, Msg: "bad"}
			}
			return line, nil
		}, func(line, v int) error {
			if line != v {
				t.Fatalf("line %d carried %d", line, v)
			}
			seen = append(seen, line)
			return nil
		})
		var list *diag.List
		if !errors.As(err, &list) || len(list.Errs()) != diag.Max || !strings.HasPrefix(list.Errs()[0].Error(), "p:97: bad") ||
			!strings.HasPrefix(list.Errs()[1].Error(), "p:194: bad") {
			t.Fatalf("workers %d: errors %v", workers, err)
		}
		for i, line := range seen {
			if i > 0 && line <= seen[i-1] {
				t.Fatalf("workers %d: line %d after %d", workers, line, seen[i-1])
			}
		}
		if last := seen[len(seen)-1]; last < 97*diag.Max-96 {
			t.Errorf("workers %d: stopped at line %d, before the %dth error", workers, last, diag.Max)
		}
	}
}

// TestTornLine: a last line cut short by a writer that stopped is skipped
// with a warning naming the lines imported before it; under Strict (or
// with nobody to warn) it is an error.
func TestTornLine(t *testing.T) {
	data := otlp(t, root("A", "a0", 20, "q1"), retriever("A", "a1", "a0", "r", 10, "d1")) + `{"resourceSpans":[{"resource":`
	for _, strict := range []bool{false, true} {
		var warned []string
		f, err := input.Open(input.Stdin, input.WithConfig(strings.NewReader(data), input.Config{Strict: strict, Warn: func(m string) { warned = append(warned, m) }}))
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := run(t, OTLP, Mapping{}, f)
		f.Close()
		want := "-:2: last line incomplete: a writer stopped mid-line; 1 complete lines imported"
		switch {
		case strict && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("strict: %v, want %q", err, want)
		case !strict && (err != nil || len(warned) != 1 || warned[0] != want || strings.Count(out, "\n") != 1):
			t.Errorf("not strict: %v, warned %q, traces %q", err, warned, out)
		}
	}
}

// TestStageOrderAncestry: the ancestry walk gives every retriever the
// rank the span-by-span walk of the ancestors gives, over random forests
// with unread parents, loops of parents and repeated ends.
func TestStageOrderAncestry(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 1 + rng.IntN(40)
		var spans, retrievers []*span
		for i := range n {
			s := &span{id: strconv.Itoa(i), end: int64(rng.IntN(8))}
			switch k := rng.IntN(10); {
			case k < 2:
			case k < 3:
				s.parent = "unread" + strconv.Itoa(rng.IntN(3))
			default:
				s.parent = strconv.Itoa(rng.IntN(n))
			}
			spans = append(spans, s)
			if rng.IntN(2) == 0 {
				retrievers = append(retrievers, s)
			}
		}
		want := naiveStageOrder(spans, slices.Clone(retrievers))
		stageOrder(spans, retrievers)
		if !slices.Equal(retrievers, want) {
			t.Fatalf("order %v, want %v", ids(retrievers), ids(want))
		}
	}
}

func ids(spans []*span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.id+"<"+s.parent)
	}
	return out
}

// naiveStageOrder is stageOrder as first written: each span's ancestors
// walked one by one, O(spans × depth).
func naiveStageOrder(spans, retrievers []*span) []*span {
	parent := map[string]string{}
	for _, s := range spans {
		parent[s.id] = s.parent
	}
	depth := map[string]int{}
	for _, s := range spans {
		d, seen := 0, map[string]bool{s.id: true}
		for p := parent[s.id]; p != "" && !seen[p]; p = parent[p] {
			if _, ok := parent[p]; !ok {
				break
			}
			seen[p] = true
			d++
		}
		depth[s.id] = d
	}
	end := map[string]int64{}
	for _, s := range retrievers {
		end[s.id] = s.end
	}
	key := map[string]int64{}
	for _, s := range retrievers {
		k, seen := s.end, map[string]bool{s.id: true}
		for p := parent[s.id]; p != "" && !seen[p]; p = parent[p] {
			seen[p] = true
			if e, ok := end[p]; ok && e < k {
				k = e
			}
		}
		key[s.id] = k
	}
	slices.SortStableFunc(retrievers, func(x, y *span) int {
		return cmp.Or(cmp.Compare(key[x.id], key[y.id]), cmp.Compare(depth[y.id], depth[x.id]))
	})
	return retrievers
}

// TestLeading: the first line is found past any run of blank lines and
// byte-order marks, the file's first newline kept for the protobuf check;
// a line past the limit is cut to its first buffer.
func TestLeading(t *testing.T) {
	long := "{" + strings.Repeat("a", 200_000) + "}\n"
	for _, c := range []struct {
		data, line string
		first      byte
		limit      int
		cut        bool
	}{
		{"{\"a\":1}\n{}\n", "{\"a\":1}\n", '{', MaxRecord, false},
		{"  \r\n\t\n{\"a\":1}", "{\"a\":1}", '{', MaxRecord, false},
		{"\n\n\ufeff \n[1]\nx", "\n[1]\n", '[', MaxRecord, false},
		{strings.Repeat("\n", 200_000) + "{}", "\n{}", '{', MaxRecord, false},
		{strings.Repeat(" ", 100_000), "", 0, MaxRecord, false},
		{"\n\x05abc\n", "\n\x05abc\n", 5, MaxRecord, false},
		{long + "{}\n", long, '{', len(long), false},
		{long + "{}\n", long[:1<<16], '{', len(long) - 1, true},
		{"\n" + long, "\n" + long[:1<<16], '{', 1 << 16, true},
	} {
		line, first, cut, err := leading(input.FromBytes("l", []byte(c.data)), c.limit)
		if err != nil || string(line) != c.line || first != c.first || cut != c.cut {
			t.Errorf("leading(%.20q, %d) = %.20q (%d bytes), %q, %v, %v; want %.20q (%d bytes), %q, %v",
				c.data, c.limit, line, len(line), first, cut, err, c.line, len(c.line), c.first, c.cut)
		}
	}
}
