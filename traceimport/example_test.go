package traceimport_test

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// Two spans of one trace, as the Collector's file exporter writes them:
// a LangChain retriever (content and metadata only, no ids), then the
// root chain with the query id in its metadata.
const spans = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"rag-v1"}}]},"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","parentSpanId":"00f067aa0ba902b7","name":"VectorStoreRetriever","startTimeUnixNano":"1000000","endTimeUnixNano":"13000000","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"RETRIEVER"}},{"key":"retrieval.documents.0.document.content","value":{"stringValue":"Clearance items are final sale."}},{"key":"retrieval.documents.0.document.metadata","value":{"stringValue":"{\"id\":\"exceptions#4\",\"scope\":\"tenant-a\"}"}}]}]}]}]}
{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"rag-v1"}}]},"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"00f067aa0ba902b7","name":"RunnableSequence","startTimeUnixNano":"0","endTimeUnixNano":"20000000","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"CHAIN"}},{"key":"metadata","value":{"stringValue":"{\"query_id\":\"refund\"}"}}]}]}]}]}
`

func ExampleImport() {
	f := input.FromBytes("spans.otlp.jsonl", []byte(spans))
	m := traceimport.Mapping{ItemID: "metadata.id"}
	man, err := traceimport.Import(traceimport.OTLP, []*input.File{f}, m, func(t *trace.Trace) error {
		s := t.Stages[0]
		fmt.Printf("query %s, system %s, stage %s: %s (scope %s), %.0f ms\n",
			t.Query, t.System, s.Name, strings.Join(s.IDs(), " "), s.Items[0].Scope, t.Latency[s.Name])
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Print(man.Summary())
	// Output:
	// query refund, system rag-v1, stage VectorStoreRetriever: exceptions#4 (scope tenant-a), 12 ms
	// imported 1 traces from 2 otlp spans (2 records, spans.otlp.jsonl)
	// conventions: openinference (2 spans)
	// query id from: metadata.query_id (1)
	// system from: resource.service.name (1)
	// context items: 0 packed whole, 0 truncated, 0 dropped in packing
	// not mapped: 1 trace without a generator span: trace 0af7651916cd43dd8448eb211c80319c (first at spans.otlp.jsonl:2)
}
