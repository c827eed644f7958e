package collect

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// FuzzReceive posts arbitrary bodies as protobuf or JSON, compressed or
// not: the receiver never panics, and whatever it acknowledges is in the
// file as one line that decodes as OTLP/JSON.
func FuzzReceive(f *testing.F) {
	td := spans("seed", 2)
	p, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	j, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	f.Add(p, false, false)
	f.Add(j, true, false)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"x","traceId":"zz"}]}]}]}`), true, false)
	f.Add([]byte{0x0a, 0x80, 0x80, 0x80, 0x80, 0x10}, false, true)
	f.Fuzz(func(t *testing.T, body []byte, asJSON, gzipped bool) {
		path := filepath.Join(t.TempDir(), "out.jsonl")
		sink, err := Create(path, New)
		if err != nil {
			t.Fatal(err)
		}
		defer sink.Close()
		s, err := NewServer(loopback, sink, Options{MaxBody: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", TracesPath, bytes.NewReader(body))
		req.Host = "127.0.0.1:4318"
		req.Header.Set("Content-Type", "application/x-protobuf")
		if asJSON {
			req.Header.Set("Content-Type", "application/json")
		}
		if gzipped {
			req.Header.Set("Content-Encoding", "gzip")
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		data, _ := os.ReadFile(path)
		if rec.Code != 200 {
			if len(data) != 0 {
				t.Fatalf("refused with %d but wrote %q", rec.Code, data)
			}
			return
		}
		if len(data) == 0 {
			return // acknowledged an export without spans
		}
		if bytes.Count(data, []byte("\n")) != 1 || data[len(data)-1] != '\n' {
			t.Fatalf("not one line: %q", data)
		}
		if _, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data[:len(data)-1]); err != nil {
			t.Fatalf("the written line does not decode: %v", err)
		}
	})
}

// FuzzCount: the counts taken on the wire never panic, and for a body
// pdata decodes they are at least what pdata decodes: exactly its spans
// for protobuf, and at least as many messages as spans.
func FuzzCount(f *testing.F) {
	td := spans("seed", 3)
	p, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	j, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	f.Add(p, false)
	f.Add(j, true)
	f.Add(emptySpans(5), false)
	f.Add(emptyAttributes(5), false)
	f.Add([]byte(`{"resource_spans":[{"scope_spans":[{"spans":[{},{}]}]}],"resourceSpans":[{"scopeSpans":[{"spans":[{}]}]}]}`), true)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spans":[{}]}]}]}]}`), true)
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		enc := protoEncoding
		if asJSON {
			enc = jsonEncoding
		}
		c, err := enc.count(body, 1<<30, 1<<30)
		if c.spans > c.items {
			t.Fatalf("%d spans in %d messages", c.spans, c.items)
		}
		td, derr := enc.decode(body)
		if derr != nil {
			return
		}
		if err != nil && !asJSON {
			t.Fatalf("pdata decodes it, the count fails: %v", err)
		}
		if err == nil && (c.spans < td.SpanCount() || !asJSON && c.spans != td.SpanCount()) {
			t.Fatalf("counted %d spans, pdata decodes %d", c.spans, td.SpanCount())
		}
	})
}
