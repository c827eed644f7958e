package openinference_test

import (
	"context"
	"fmt"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/trace/openinference"
)

// A service traces each query: a retriever, a reranker over what it found,
// and the generator with the exact prompt. Here the spans go to a recorder;
// a real service gives its TracerProvider an OTLP exporter pointed at its
// observability backend or at `ragstat collect`.
func Example() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tr := openinference.New(tp)

	passage := func(id, text string, score float64) trace.Item {
		it := trace.Scored(id, score)
		it.Text = &text
		return it
	}
	ctx, q := tr.Query(context.Background(), "refund-window", "How long do I have to return an item?")
	_, bm25 := tr.Retrieve(ctx, "bm25", "return item days")
	found := []trace.Item{
		passage("policy#2", "Returns are accepted within 30 days of delivery.", 12.1),
		passage("faq#7", "Refunds reach your card in 5 to 10 days.", 9.4),
		passage("blog#1", "Our favourite summer items.", 3.2),
	}
	bm25.End(found...)
	_, rr := tr.Rerank(ctx, "cross-encoder", "How long do I have to return an item?", found)
	rr.End(found[0], found[1])
	_, gen := tr.Generate(ctx, "gpt-4o-mini",
		openinference.Message{Role: "system", Content: "Answer from the context.\n\n[policy#2] " + *found[0].Text},
		openinference.Message{Role: "user", Content: "How long do I have to return an item?"})
	gen.End("Within 30 days of delivery [policy#2].", openinference.Usage{PromptTokens: 31, CompletionTokens: 9})
	q.End("Within 30 days of delivery [policy#2].")

	for _, s := range rec.Ended() {
		var kind string
		var docs []string
		for _, a := range s.Attributes() {
			k := string(a.Key)
			switch {
			case k == "openinference.span.kind":
				kind = a.Value.AsString()
			case strings.HasSuffix(k, ".document.id") && !strings.HasPrefix(k, "reranker.input"):
				docs = append(docs, a.Value.AsString())
			}
		}
		fmt.Println(s.Name(), kind, docs)
	}
	// Output:
	// bm25 RETRIEVER [policy#2 faq#7 blog#1]
	// cross-encoder RERANKER [policy#2 faq#7]
	// generate LLM []
	// query CHAIN []
}
