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
