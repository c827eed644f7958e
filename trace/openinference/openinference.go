// Package openinference lets a Go RAG service emit its pipeline as
// OpenTelemetry spans with OpenInference attributes (the conventions of
// Arize Phoenix and the OpenInference instrumentations), so one
// instrumentation feeds its observability backend and ragstat alike:
// `ragstat collect` receives the spans and `ragstat import otlp` turns each
// query's spans into a ragstat trace (see package trace).
//
// A query is a CHAIN span whose metadata carries the query id
// ({"query_id": ...}, the importer's default key); each retriever is a
// RETRIEVER span listing its documents (retrieval.documents.N.document.id,
// score, content, and metadata holding doc, revision, scope, valid_from and
// valid_to); a reranker is a RERANKER span with its input and output
// documents; the generator is an LLM span with the messages sent
// (llm.input_messages), from which the importer finds which documents were
// packed, and the answer (llm.output_messages). Spans nest through the
// context as usual, and a retriever called inside another becomes the
// earlier stage.
//
// The package is an adapter: it keeps the OpenTelemetry dependency out of
// package trace, whose Item it takes.
package openinference

import (
	"context"
	"encoding/json"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/ragstat/ragstat/trace"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/ragstat/ragstat/trace/openinference"

// Span kinds (openinference.span.kind).
const (
	kindChain     = "CHAIN"
	kindRetriever = "RETRIEVER"
	kindReranker  = "RERANKER"
	kindLLM       = "LLM"
)

// Tracer starts the spans of a pipeline. It is safe for concurrent use.
type Tracer struct {
	t oteltrace.Tracer
}

// New returns a Tracer that creates spans with tp.
func New(tp oteltrace.TracerProvider) *Tracer {
	return &Tracer{t: tp.Tracer(ScopeName)}
}

// Message is one chat message sent to the generator.
type Message struct {
	Role    string // system, user, assistant, ...
	Content string
}

// Usage is what the generator reports it counted; zero when unknown.
type Usage struct {
	PromptTokens, CompletionTokens int
}

// span is a span in progress, embedded in Query, Retrieval and
// Generation: their End method records the result and ends it; Fail
// records an error instead.
type span struct {
	s oteltrace.Span
}

// Fail marks the span as failed with err and ends it.
func (s span) Fail(err error) {
	s.s.RecordError(err)
	s.s.SetStatus(codes.Error, err.Error())
	s.s.End()
}

// Query is the span of one query.
type Query struct{ span }

// Query starts the span of the query id asking text; the stages started
// from the returned context belong to it.
func (t *Tracer) Query(ctx context.Context, id, text string) (context.Context, *Query) {
	meta, _ := json.Marshal(map[string]string{"query_id": id})
	ctx, s := t.t.Start(ctx, "query", oteltrace.WithAttributes(
		attribute.String("openinference.span.kind", kindChain),
		attribute.String("input.value", text),
		attribute.String("input.mime_type", "text/plain"),
		attribute.String("metadata", string(meta)),
	))
	return ctx, &Query{span{s}}
}

// End records the pipeline's answer and ends the query's span.
func (q *Query) End(answer string) {
	q.s.SetAttributes(attribute.String("output.value", answer), attribute.String("output.mime_type", "text/plain"))
	q.s.End()
}

// Retrieval is the span of a retriever or a reranker.
type Retrieval struct {
	span
	prefix string // where its result documents go
}

// Retrieve starts the span of the retriever called name (the stage's name
// once imported) searching for query.
func (t *Tracer) Retrieve(ctx context.Context, name, query string) (context.Context, *Retrieval) {
	ctx, s := t.t.Start(ctx, name, oteltrace.WithAttributes(
		attribute.String("openinference.span.kind", kindRetriever),
		attribute.String("input.value", query),
		attribute.String("input.mime_type", "text/plain"),
	))
	return ctx, &Retrieval{span{s}, "retrieval.documents."}
}

// Rerank starts the span of the reranker called name ordering the
// documents in for query.
func (t *Tracer) Rerank(ctx context.Context, name, query string, in []trace.Item) (context.Context, *Retrieval) {
	attrs := []attribute.KeyValue{
		attribute.String("openinference.span.kind", kindReranker),
		attribute.String("reranker.query", query),
	}
	ctx, s := t.t.Start(ctx, name, oteltrace.WithAttributes(append(attrs, documents("reranker.input_documents.", in)...)...))
	return ctx, &Retrieval{span{s}, "reranker.output_documents."}
}

// End records the documents delivered, in rank order, and ends the span.
func (r *Retrieval) End(items ...trace.Item) {
	r.s.SetAttributes(documents(r.prefix, items)...)
	r.s.End()
}

// documents are the attributes of a list of documents under prefix.
func documents(prefix string, items []trace.Item) []attribute.KeyValue {
	var out []attribute.KeyValue
	for i, it := range items {
		p := prefix + strconv.Itoa(i) + ".document."
		out = append(out, attribute.String(p+"id", it.ID))
		if it.Score != nil {
			out = append(out, attribute.Float64(p+"score", *it.Score))
		}
		if it.Text != nil {
			out = append(out, attribute.String(p+"content", *it.Text))
		}
		if it.Meta.Known() {
			meta, _ := json.Marshal(it.Meta)
			out = append(out, attribute.String(p+"metadata", string(meta)))
		}
	}
	return out
}

// Generation is the span of a call to the generator.
type Generation struct{ span }

// Generate starts the span of a call to the model with the messages sent,
// exactly as sent: the importer finds the packed documents in them.
func (t *Tracer) Generate(ctx context.Context, model string, messages ...Message) (context.Context, *Generation) {
	attrs := []attribute.KeyValue{attribute.String("openinference.span.kind", kindLLM)}
	if model != "" {
		attrs = append(attrs, attribute.String("llm.model_name", model))
	}
	for i, m := range messages {
		p := "llm.input_messages." + strconv.Itoa(i) + ".message."
		attrs = append(attrs, attribute.String(p+"role", m.Role), attribute.String(p+"content", m.Content))
	}
	ctx, s := t.t.Start(ctx, "generate", oteltrace.WithAttributes(attrs...))
	return ctx, &Generation{span{s}}
}

// End records the answer and the token counts the model reported, and
// ends the span.
func (g *Generation) End(answer string, usage Usage) {
	g.s.SetAttributes(
		attribute.String("llm.output_messages.0.message.role", "assistant"),
		attribute.String("llm.output_messages.0.message.content", answer),
	)
	if usage != (Usage{}) {
		g.s.SetAttributes(
			attribute.Int("llm.token_count.prompt", usage.PromptTokens),
			attribute.Int("llm.token_count.completion", usage.CompletionTokens),
			attribute.Int("llm.token_count.total", usage.PromptTokens+usage.CompletionTokens),
		)
	}
	g.s.End()
}
