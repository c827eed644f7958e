package traceimport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
)

// bigTrace writes one trace of n spans as OTLP/JSON lines of 1,000 spans:
// a root, n-3 chain spans, a retriever and a generator; chain makes each
// span the parent of the next (a tree n deep), else all hang on the root.
func bigTrace(b *testing.B, n int, chain bool) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "trace.jsonl")
	var buf bytes.Buffer
	const tid = "0102030405060708090a0b0c0d0e0f10"
	span := func(i int, kind string, extra string) {
		if i%1000 == 0 {
			if i > 0 {
				buf.WriteString("]}]}]}\n")
			}
			buf.WriteString(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[`)
		} else {
			buf.WriteByte(',')
		}
		parent := ""
		switch {
		case i == 0:
		case chain:
			parent = fmt.Sprintf(`"parentSpanId":"%016x",`, i)
		default:
			parent = fmt.Sprintf(`"parentSpanId":"%016x",`, 1)
		}
		fmt.Fprintf(&buf, `{"traceId":"%s","spanId":"%016x",%s"name":"s","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"%s"}}%s]}`,
			tid, i+1, parent, 1000+i, 2000000000-i, kind, extra)
	}
	span(0, "CHAIN", `,{"key":"session.id","value":{"stringValue":"q1"}}`)
	for i := 1; i < n-2; i++ {
		span(i, "CHAIN", "")
	}
	span(n-2, "RETRIEVER", `,{"key":"retrieval.documents.0.document.id","value":{"stringValue":"d1"}},{"key":"retrieval.documents.0.document.content","value":{"stringValue":"text of d1"}}`)
	span(n-1, "LLM", `,{"key":"llm.input_messages.0.message.content","value":{"stringValue":"text of d1"}},{"key":"llm.output_messages.0.message.content","value":{"stringValue":"ok [d1]"}}`)
	buf.WriteString("]}]}]}\n")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// spanTreeSize is the number of spans of BenchmarkSpanTree's trace.
var spanTreeSize = 1_000_000

// BenchmarkSpanTree imports one trace of a million spans, as a chain a
// million deep and as a flat tree under its root: the walk of the tree is
// linear, so the two cost about the same.
func BenchmarkSpanTree(b *testing.B) {
	for _, shape := range []struct {
		name  string
		chain bool
	}{{"chain", true}, {"flat", false}} {
		b.Run(shape.name, func(b *testing.B) {
			path := bigTrace(b, spanTreeSize, shape.chain)
			defer cpuPerOp(b)()
			for b.Loop() {
				importFile(b, path, 1)
			}
		})
	}
}

// BenchmarkBlankLines imports 64 MB of blank lines: each is an error, read
// in one pass, the first diag.Max reported.
func BenchmarkBlankLines(b *testing.B) {
	path := filepath.Join(b.TempDir(), "blank.jsonl")
	if err := os.WriteFile(path, bytes.Repeat([]byte{'\n'}, 64<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	defer cpuPerOp(b)()
	for b.Loop() {
		importFile(b, path, 0)
	}
}

// cpuPerOp reports the CPU time (user and system) of the process per
// operation, from now to when the function it returns is called: on a
// shared machine it says what the wall time cannot.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var u syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &u)
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric((cpu()-start).Seconds()/float64(b.N), "cpu-s/op") }
}

// BenchmarkStageOrder ranks the retrievers of a chain of 3,000 spans,
// every other one a retriever, with the walk of each chain once and, side
// by side, with the walk of every span's ancestors one by one.
func BenchmarkStageOrder(b *testing.B) {
	var spans, retrievers []*span
	for i := range 3_000 {
		s := &span{id: strconv.Itoa(i), end: int64(i % 7)}
		if i > 0 {
			s.parent = strconv.Itoa(i - 1)
		}
		spans = append(spans, s)
		if i%2 == 0 {
			retrievers = append(retrievers, s)
		}
	}
	b.Run("once", func(b *testing.B) {
		for b.Loop() {
			stageOrder(spans, slices.Clone(retrievers))
		}
	})
	b.Run("each", func(b *testing.B) {
		for b.Loop() {
			naiveStageOrder(spans, slices.Clone(retrievers))
		}
	})
}

// importFile imports path as OTLP and checks it gave traces traces (0:
// an error).
func importFile(b *testing.B, path string, traces int) {
	f, err := input.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n := 0
	_, err = Import(OTLP, []*input.File{f}, Mapping{}, func(*trace.Trace) error { n++; return nil })
	if traces > 0 && (err != nil || n != traces) || traces == 0 && err == nil {
		b.Fatalf("%d traces, %v", n, err)
	}
}
