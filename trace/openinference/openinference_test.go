package openinference_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/trace/openinference"
	"github.com/ragstat/ragstat/traceimport"
)

func item(id, text string, score float64, meta corpus.Meta) trace.Item {
	it := trace.Scored(id, score)
	it.Text, it.Meta = &text, meta
	return it
}

// pipeline traces one query through a retriever, a reranker and the
// generator, the context packing the first passage whole and a cut of the
// second.
func pipeline(t *testing.T, tr *openinference.Tracer) {
	t.Helper()
	var internal corpus.Meta
	if err := json.Unmarshal([]byte(`{"doc":"handbook","revision":"3","scope":"staff","valid_from":"2026-01-01","valid_to":"2027-01-01"}`), &internal); err != nil {
		t.Fatal(err)
	}
	found := []trace.Item{
		item("policy#2", "Returns are accepted within 30 days of delivery.", 12.5, corpus.Meta{Doc: "policy"}),
		item("handbook#4", "Staff may extend the return window for loyal customers.", 9.25, internal),
		item("blog#1", "Our favourite summer items.", 3, corpus.Meta{}),
	}
	ctx, q := tr.Query(context.Background(), "refund-window", "How long do I have to return an item?")
	rctx, rr := tr.Rerank(ctx, "rerank", "How long do I have to return an item?", nil)
	_, bm25 := tr.Retrieve(rctx, "bm25", "return item days")
	bm25.End(found...)
	rr.End(found[1], found[0])
	_, gen := tr.Generate(ctx, "gpt-4o-mini",
		openinference.Message{Role: "system", Content: "Answer from the context.\n\nStaff may extend the return window for\n\nReturns are accepted within 30 days of delivery."},
		openinference.Message{Role: "user", Content: "How long do I have to return an item?"})
	gen.End("Within 30 days [policy#2].", openinference.Usage{PromptTokens: 40, CompletionTokens: 7})
	q.End("Within 30 days [policy#2].")
}

// TestImported emits a query's spans, converts them to OTLP/JSON as an
// exporter would, and checks that `ragstat import otlp` rebuilds the trace:
// the inner retriever first, the reranker's order, the ids, scores and
// metadata of the documents, the packed and truncated context items, the
// prompt size the generator reported, the answer (abstention not recorded:
// no pattern is given) and the query id.
func TestImported(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "go-rag"))))
	pipeline(t, openinference.New(tp))
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(toOTLP(rec.Ended()))
	if err != nil {
		t.Fatal(err)
	}
	var got []*trace.Trace
	man, err := traceimport.Import(traceimport.OTLP, []*input.File{input.FromBytes("spans.jsonl", append(line, '\n'))},
		traceimport.Mapping{Strict: true}, func(tr *trace.Trace) error { got = append(got, tr); return nil })
	if err != nil {
		t.Fatalf("%v\n%s", err, man.Summary())
	}
	if len(got) != 1 {
		t.Fatalf("%d traces", len(got))
	}
	tr := got[0]
	tr.Latency, tr.Meta, tr.File, tr.Line = nil, nil, "", 0
	// The ids are the SDK's, random: each stage keeps its span's.
	if len(tr.TraceID) != 32 {
		t.Errorf("trace id %q", tr.TraceID)
	}
	for i := range tr.Stages {
		if len(tr.Stages[i].SpanID) != 16 {
			t.Errorf("stage %s: span id %q", tr.Stages[i].Name, tr.Stages[i].SpanID)
		}
		tr.Stages[i].SpanID = ""
	}
	tr.TraceID = ""
	b, _ := json.Marshal(tr)
	want := `{"query":"refund-window","system":"go-rag","stages":[` +
		`{"name":"bm25","items":[{"id":"policy#2","score":12.5,"doc":"policy"},` +
		`{"id":"handbook#4","score":9.25,"doc":"handbook","revision":"3","scope":"staff","valid_from":"2026-01-01","valid_to":"2027-01-01"},` +
		`{"id":"blog#1","score":3}]},` +
		`{"name":"rerank","items":[{"id":"handbook#4","score":9.25,"doc":"handbook","revision":"3","scope":"staff","valid_from":"2026-01-01","valid_to":"2027-01-01"},` +
		`{"id":"policy#2","score":12.5,"doc":"policy"}]},` +
		`{"name":"context","items":[{"id":"handbook#4","text":"Staff may extend the return window for","doc":"handbook","revision":"3","scope":"staff","valid_from":"2026-01-01","valid_to":"2027-01-01"},` +
		`{"id":"policy#2","text":"Returns are accepted within 30 days of delivery.","doc":"policy"}],` +
		`"text":"Answer from the context.\n\nStaff may extend the return window for\n\nReturns are accepted within 30 days of delivery.\nHow long do I have to return an item?","reported_tokens":40}],` +
		`"answer":{"text":"Within 30 days [policy#2].","citations":["policy#2"]},"config":{"model":"gpt-4o-mini"}}`
	if string(b) != want {
		t.Errorf("imported\n%s\nwant\n%s", b, want)
	}
}

func TestFail(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tr := openinference.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	_, r := tr.Retrieve(context.Background(), "bm25", "x")
	r.Fail(errors.New("index offline"))
	s := rec.Ended()
	if len(s) != 1 || s[0].Status().Code != codes.Error || s[0].Status().Description != "index offline" || len(s[0].Events()) != 1 {
		t.Errorf("failed span %+v", s)
	}
}

// toOTLP converts recorded spans to OTLP, as an OTLP exporter sends them.
func toOTLP(spans []sdktrace.ReadOnlySpan) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	putAll(rs.Resource().Attributes(), spans[0].Resource().Attributes())
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName(spans[0].InstrumentationScope().Name)
	for _, s := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(s.Name())
		sp.SetTraceID(pcommon.TraceID(s.SpanContext().TraceID()))
		sp.SetSpanID(pcommon.SpanID(s.SpanContext().SpanID()))
		if s.Parent().IsValid() {
			sp.SetParentSpanID(pcommon.SpanID(s.Parent().SpanID()))
		}
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(s.StartTime()))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(s.EndTime()))
		putAll(sp.Attributes(), s.Attributes())
	}
	return td
}

func putAll(m pcommon.Map, attrs []attribute.KeyValue) {
	for _, a := range attrs {
		switch a.Value.Type() {
		case attribute.STRING:
			m.PutStr(string(a.Key), a.Value.AsString())
		case attribute.INT64:
			m.PutInt(string(a.Key), a.Value.AsInt64())
		case attribute.FLOAT64:
			m.PutDouble(string(a.Key), a.Value.AsFloat64())
		case attribute.BOOL:
			m.PutBool(string(a.Key), a.Value.AsBool())
		}
	}
}
