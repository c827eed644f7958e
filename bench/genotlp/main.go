// Command genotlp writes synthetic OpenTelemetry spans of a RAG pipeline
// under the OpenInference conventions, as OTLP/JSON lines the way the
// Collector's file exporter writes what a SimpleSpanProcessor sends: one
// span per line, the spans of several traces in flight interleaved. Each
// trace has a root chain, a retriever returning the candidates, a reranker
// and an LLM span whose input holds the packed context. The judgments and
// topics of the queries are written beside it, for benchmarking `ragstat
// import` and `ragstat stages`. The output depends only on the flags.
//
//	go run ./bench/genotlp -out DIR [-traces 10000] [-candidates 50] [-reranked 10] [-context 8] [-passage 1000] [-inflight 8]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/ragstat/ragstat/internal/synth"
)

type config struct {
	synth.Pipeline
	traces, inflight int
}

func main() {
	var c config
	synth.Main(&c.traces, 10000, &c.Pipeline,
		func(fs *flag.FlagSet) { fs.IntVar(&c.inflight, "inflight", 8, "traces whose spans interleave") },
		func(dir string) error { return c.write(dir) })
}

func (c config) write(dir string) error {
	files, closeAll, err := synth.Create(dir, "spans.otlp.jsonl", "judgments.jsonl", "topics.jsonl")
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	for first := 0; first < c.traces; first += c.inflight {
		var batches [][]ptrace.Traces
		for q := first; q < min(first+c.inflight, c.traces); q++ {
			spans, err := c.query(r, q, files)
			if err != nil {
				return err
			}
			batches = append(batches, spans)
		}
		// Round robin: the n-th span to end of every trace in flight.
		for n := 0; ; n++ {
			wrote := false
			for _, spans := range batches {
				if n < len(spans) {
					b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(spans[n])
					if err != nil {
						return err
					}
					files["spans.otlp.jsonl"].Write(append(b, '\n'))
					wrote = true
				}
			}
			if !wrote {
				break
			}
		}
	}
	return closeAll()
}

// query returns the spans of one trace, each as its own request, in the
// order they end, and writes the query's judgments and topic.
func (c config) query(r *rand.Rand, q int, files map[string]synth.Out) ([]ptrace.Traces, error) {
	qid := fmt.Sprintf("q%06d", q)
	ids := make([]string, c.Candidates)
	texts := make([]string, c.Candidates)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-p%02d", qid, i)
		texts[i] = synth.NumberedPassage(r, c.Passage)
	}
	var tid pcommon.TraceID
	copy(tid[:], fmt.Sprintf("%016x", q*2654435761+1))
	sid := func(n int) (id pcommon.SpanID) {
		copy(id[:], fmt.Sprintf("%08x", q*8+n))
		return id
	}
	t0 := pcommon.Timestamp(1767225600_000_000_000 + int64(q)*1_000_000_000)
	ms := pcommon.Timestamp(1_000_000)
	newSpan := func(n int, name, kind string, start, end pcommon.Timestamp) (ptrace.Traces, ptrace.Span) {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "bench")
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("@arizeai/openinference-instrumentation-langchain")
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid)
		sp.SetSpanID(sid(n))
		if n > 0 {
			sp.SetParentSpanID(sid(0))
		}
		sp.SetName(name)
		sp.SetStartTimestamp(start)
		sp.SetEndTimestamp(end)
		sp.Attributes().PutStr("openinference.span.kind", kind)
		sp.Attributes().PutStr("metadata", `{"query_id":"`+qid+`"}`)
		return td, sp
	}
	docs := func(attrs pcommon.Map, prefix string, n int) {
		for i := range n {
			p := fmt.Sprintf("%s.%d.document.", prefix, i)
			attrs.PutStr(p+"id", ids[i])
			attrs.PutDouble(p+"score", float64(n-i))
			attrs.PutStr(p+"content", texts[i])
		}
	}
	retr, s := newSpan(1, "VectorStoreRetriever", "RETRIEVER", t0+ms, t0+12*ms)
	s.Attributes().PutStr("input.value", "question "+qid)
	docs(s.Attributes(), "retrieval.documents", c.Candidates)
	rerank, s := newSpan(2, "CrossEncoderReranker", "RERANKER", t0+13*ms, t0+50*ms)
	docs(s.Attributes(), "reranker.output_documents", c.Reranked)
	packed := make([]string, c.Context)
	for i := range packed {
		packed[i] = "[" + ids[i] + "] " + texts[i]
	}
	llm, s := newSpan(3, "ChatOpenAI", "LLM", t0+51*ms, t0+900*ms)
	a := s.Attributes()
	a.PutStr("llm.model_name", "gpt-4o-mini")
	a.PutStr("llm.input_messages.0.message.role", "system")
	a.PutStr("llm.input_messages.0.message.content", "Answer from the context and cite passage ids.")
	a.PutStr("llm.input_messages.1.message.role", "user")
	a.PutStr("llm.input_messages.1.message.content", strings.Join(packed, "\n\n")+"\n\nquestion "+qid)
	a.PutStr("llm.output_messages.0.message.role", "assistant")
	a.PutStr("llm.output_messages.0.message.content", "answer ["+ids[0]+"]")
	a.PutInt("llm.token_count.prompt", 2100)
	a.PutInt("llm.token_count.completion", 12)
	root, _ := newSpan(0, "RunnableSequence", "CHAIN", t0, t0+901*ms)
	if err := synth.Judge(files["judgments.jsonl"].Enc, qid, ids); err != nil {
		return nil, err
	}
	err := files["topics.jsonl"].Enc.Encode(map[string]any{"id": qid, "text": "question " + qid})
	return []ptrace.Traces{retr, rerank, llm, root}, err
}
