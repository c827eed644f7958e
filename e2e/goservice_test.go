package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/trace/openinference"
)

// TestGoServiceSpans: a Go service instrumented with package openinference
// exports through OpenTelemetry's own OTLP/HTTP exporter (protobuf, gzip,
// batched) to `ragstat collect`; `ragstat import otlp` gives back each
// query's stages, packed context and answer.
func TestGoServiceSpans(t *testing.T) {
	bin := buildRagstat(t)
	spans := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, bin, spans)
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(c.endpoint+"/v1/traces"),
		otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "go-rag"))))
	tr := openinference.New(tp)
	passages := map[string]string{
		"a": "Alpha passage about returns within 30 days.",
		"b": "Beta passage about refunds to the original card.",
		"c": "Gamma passage about gift cards, never refunded.",
	}
	item := func(id string, score float64) trace.Item {
		it := trace.Scored(id, score)
		text := passages[id]
		it.Text = &text
		return it
	}
	type kept struct{ first, cut string }
	want := map[string]kept{}
	for q := range 20 {
		id := fmt.Sprintf("q%02d", q)
		qctx, query := tr.Query(ctx, id, "question "+id)
		rctx, rr := tr.Rerank(qctx, "rerank", "question "+id, nil)
		_, bm25 := tr.Retrieve(rctx, "bm25", "question "+id)
		found := []trace.Item{item("a", 3), item("b", 2), item("c", 1)}
		bm25.End(found...)
		// The reranker keeps two of the three, in an order that turns
		// with the query; the context holds the first whole and the
		// first 25 characters of the second.
		first, second := found[2-q%3], found[(3-q%3)%3]
		want[id] = kept{first.ID, second.ID}
		rr.End(first, second)
		_, gen := tr.Generate(qctx, "m", openinference.Message{Role: "system", Content: "Context:\n" + *first.Text + "\n" + (*second.Text)[:25]},
			openinference.Message{Role: "user", Content: "question " + id})
		answer := fmt.Sprintf("See [%s].", first.ID)
		gen.End(answer, openinference.Usage{})
		query.End(answer)
	}
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatalf("exporting: %v", err)
	}
	if msg := c.stop(t); !strings.Contains(msg, "(80 spans) written") || !strings.Contains(msg, ", 0 refused") {
		t.Errorf("collect said %q; want 80 spans (4 a query), none refused", msg)
	}
	traces := filepath.Join(t.TempDir(), "traces.jsonl")
	_, msg := ragstat(t, bin, "import", "otlp", spans, "--strict", "--out", traces)
	if !strings.Contains(msg, "imported 20 traces from 80 otlp spans") || !strings.Contains(msg, "context items: 20 packed whole, 20 truncated, 0 dropped") {
		t.Errorf("import said %q", msg)
	}
	data, err := os.ReadFile(traces)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		var got trace.Trace
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		w, ok := want[got.Query]
		delete(want, got.Query)
		var stages []string
		for _, st := range got.Stages {
			stages = append(stages, st.Name+" "+strings.Join(st.IDs(), ","))
		}
		stagesWant := fmt.Sprintf("bm25 a,b,c; rerank %s,%s; context %s,%s", w.first, w.cut, w.first, w.cut)
		if !ok || strings.Join(stages, "; ") != stagesWant || got.System != "go-rag" || got.Answer == nil || got.Answer.Text != "See ["+w.first+"]." {
			t.Errorf("%s: stages %q, system %s, answer %+v; want %q", got.Query, stages, got.System, got.Answer, stagesWant)
			continue
		}
		if cut := got.Stage("context").Items[1]; cut.Text == nil || *cut.Text != passages[w.cut][:25] {
			t.Errorf("%s: the cut passage kept %v", got.Query, cut.Text)
		}
	}
	if len(want) > 0 {
		t.Errorf("queries not imported: %v", want)
	}
}
