package collect

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// spans makes an export of n spans named name-0, name-1, ... in one trace.
func spans(name string, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "rag-app")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("test")
	for i := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(name + "-" + string(rune('0'+i)))
		sp.SetTraceID(pcommon.TraceID{1, 2, 3, byte(i)})
		sp.SetSpanID(pcommon.SpanID{9, byte(i)})
		sp.Attributes().PutStr("openinference.span.kind", "RETRIEVER")
		sp.Attributes().PutStr("retrieval.documents.0.document.id", "d1")
		sp.Attributes().PutStr("input.value", "line one\nline two \u2028 \"quoted\"")
		sp.Attributes().PutInt("n", int64(i))
	}
	return td
}

func protoBody(t *testing.T, td ptrace.Traces) []byte {
	t.Helper()
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonBody(t *testing.T, td ptrace.Traces) []byte {
	t.Helper()
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fakeListener has an address and accepts nothing: the handler tests call
// the handler directly.
type fakeListener struct{ addr net.Addr }

func (l fakeListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (l fakeListener) Close() error              { return nil }
func (l fakeListener) Addr() net.Addr            { return l.addr }

var loopback = fakeListener{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4318}}

func newServer(t *testing.T, ln net.Listener, opt Options) (*Server, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	sink, err := Create(path, New)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sink.Close() })
	s, err := NewServer(ln, sink, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

// lines decodes every line of the file as OTLP/JSON.
func lines(t *testing.T, path string) []ptrace.Traces {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ptrace.Traces
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, td)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReceive(t *testing.T) {
	want := spans("retrieve", 3)
	for _, c := range []struct {
		name, ctype, encoding string
		body                  []byte
		ack                   string
	}{
		{"protobuf", "application/x-protobuf", "", protoBody(t, want), ""},
		{"json", "application/json", "", jsonBody(t, want), "{}"},
		{"json with charset", "application/json; charset=utf-8", "identity", jsonBody(t, want), "{}"},
		{"gzip protobuf", "application/x-protobuf", "gzip", gz(t, protoBody(t, want)), ""},
		{"gzip json", "application/json", "GZIP", gz(t, jsonBody(t, want)), "{}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, path := newServer(t, loopback, Options{})
			for range 2 {
				req := httptest.NewRequest("POST", "/v1/traces", bytes.NewReader(c.body))
				req.Host = "localhost:4318"
				req.Header.Set("Content-Type", c.ctype)
				if c.encoding != "" {
					req.Header.Set("Content-Encoding", c.encoding)
				}
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, req)
				if rec.Code != 200 || rec.Body.String() != c.ack {
					t.Fatalf("status %d, body %q", rec.Code, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(c.ctype, ct) {
					t.Errorf("answered in %q", ct)
				}
			}
			got := lines(t, path)
			if len(got) != 2 {
				t.Fatalf("%d lines, want 2", len(got))
			}
			for _, td := range got {
				if !bytes.Equal(jsonBody(t, td), jsonBody(t, want)) {
					t.Errorf("line differs from what was sent:\n%s\n%s", jsonBody(t, td), jsonBody(t, want))
				}
			}
			if st := s.Stats(); st != (Stats{Requests: 2, Spans: 6}) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestRefuse(t *testing.T) {
	body := protoBody(t, spans("x", 1))
	big := protoBody(t, spans(strings.Repeat("y", 3000), 1))
	for _, c := range []struct {
		name, method, path, host, ctype, encoding, auth string
		body                                            []byte
		token                                           string
		code                                            int
		msg                                             string
	}{
		{"foreign host", "POST", "/v1/traces", "evil.example:4318", "application/x-protobuf", "", "", body, "", 421, "Host evil.example:4318 refused"},
		{"get", "GET", "/v1/traces", "127.0.0.1", "", "", "", nil, "", 405, ""},
		{"other path", "POST", "/v1/metrics", "127.0.0.1", "application/x-protobuf", "", "", body, "", 404, ""},
		{"no content type", "POST", "/v1/traces", "127.0.0.1", "", "", "", body, "", 415, "application/x-protobuf or application/json"},
		{"text", "POST", "/v1/traces", "127.0.0.1", "text/plain", "", "", body, "", 415, `"text/plain"`},
		{"bad content type", "POST", "/v1/traces", "127.0.0.1", "application/json; =", "", "", body, "", 415, "bad Content-Type"},
		{"deflate", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "deflate", "", body, "", 415, `Content-Encoding "deflate"`},
		{"not gzip", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "gzip", "", body, "", 400, "gzip"},
		{"truncated gzip", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "gzip", "", gz(t, body)[:20], "", 400, "reading the body"},
		{"bad protobuf", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "", "", []byte{0xff, 0xff, 0xff}, "", 400, "not an OTLP"},
		{"bad json", "POST", "/v1/traces", "127.0.0.1", "application/json", "", "", []byte(`{"resourceSpans":[{]}`), "", 400, "not an OTLP"},
		{"too big", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "", "", big, "", 413, "over 2048 bytes"},
		{"gzip bomb", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "gzip", "", gz(t, big), "", 413, "once decompressed"},
		{"no token", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "", "", body, "s3cret", 401, "access token"},
		{"wrong token", "POST", "/v1/traces", "127.0.0.1", "application/x-protobuf", "", "Bearer s3cres", body, "s3cret", 401, "access token"},
		{"wrong secret key", "POST", "/api/public/otel/v1/traces", "127.0.0.1", "application/x-protobuf", "", "Basic " + base64.StdEncoding.EncodeToString([]byte("pk-lf-1:s3cres")), body, "s3cret", 401, "as the secret key"},
		{"token as the user", "POST", "/api/public/otel/v1/traces", "127.0.0.1", "application/x-protobuf", "", "Basic " + base64.StdEncoding.EncodeToString([]byte("s3cret")), body, "s3cret", 401, "access token"},
		{"bad basic", "POST", "/api/public/otel/v1/traces", "127.0.0.1", "application/x-protobuf", "", "Basic %%%", body, "s3cret", 401, "access token"},
		{"cross-origin", "POST", "/v1/traces", "127.0.0.1", "application/json", "", "", body, "", 403, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, path := newServer(t, loopback, Options{Token: c.token, MaxBody: 2048})
			req := httptest.NewRequest(c.method, c.path, bytes.NewReader(c.body))
			req.Host = c.host
			if c.ctype != "" {
				req.Header.Set("Content-Type", c.ctype)
			}
			if c.encoding != "" {
				req.Header.Set("Content-Encoding", c.encoding)
			}
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			if c.name == "cross-origin" {
				req.Header.Set("Sec-Fetch-Site", "cross-site")
				req.Header.Set("Origin", "http://evil.example")
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.msg) {
				t.Errorf("status %d %q, want %d with %q", rec.Code, rec.Body, c.code, c.msg)
			}
			if got := lines(t, path); len(got) != 0 {
				t.Errorf("%d lines written", len(got))
			}
		})
	}
}

func TestToken(t *testing.T) {
	elsewhere := fakeListener{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 4318}}
	if _, err := NewServer(elsewhere, &Sink{}, Options{}); err == nil || !strings.Contains(err.Error(), "needs an access token") {
		t.Fatalf("off loopback without a token: %v", err)
	}
	s, path := newServer(t, elsewhere, Options{Token: "s3cret"})
	req := httptest.NewRequest("POST", "/v1/traces", bytes.NewReader(protoBody(t, spans("x", 2))))
	req.Host = "collector.example:4318" // any host, with the token
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer s3cret")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 || len(lines(t, path)) != 1 {
		t.Fatalf("status %d %q", rec.Code, rec.Body)
	}
	// A Langfuse SDK sends its public and secret keys as basic
	// authentication: the token is the secret key.
	req = httptest.NewRequest("POST", LangfusePath, bytes.NewReader(protoBody(t, spans("x", 2))))
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.SetBasicAuth("pk-lf-1234", "s3cret")
	rec = httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 || len(lines(t, path)) != 2 {
		t.Fatalf("status %d %q", rec.Code, rec.Body)
	}
}

func TestEmptyExport(t *testing.T) {
	s, path := newServer(t, loopback, Options{})
	req := httptest.NewRequest("POST", "/v1/traces", strings.NewReader(`{}`))
	req.Host = "127.0.0.1:4318"
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("status %d %q", rec.Code, rec.Body)
	}
	if fi, _ := os.Stat(path); fi.Size() != 0 {
		t.Errorf("an export without spans wrote %d bytes", fi.Size())
	}
}

// BenchmarkReceive: acknowledged protobuf exports of 8 spans each, every
// one written and synced to a file before its answer, from one client and
// from 8 clients a core at once (whose lines share flushes).
func BenchmarkReceive(b *testing.B) {
	body, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(spans("bench", 8))
	if err != nil {
		b.Fatal(err)
	}
	post := func(b *testing.B, h http.Handler) {
		req := httptest.NewRequest("POST", TracesPath, bytes.NewReader(body))
		req.Host = "127.0.0.1:4318"
		req.Header.Set("Content-Type", "application/x-protobuf")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Error(rec.Code)
		}
	}
	handler := func(b *testing.B) http.Handler {
		sink, err := Create(filepath.Join(b.TempDir(), "out.jsonl"), New)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sink.Close() })
		s, err := NewServer(loopback, sink, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body)))
		return s.Handler()
	}
	b.Run("clients=1", func(b *testing.B) {
		h := handler(b)
		for b.Loop() {
			post(b, h)
		}
	})
	b.Run("clients=8-per-core", func(b *testing.B) {
		h := handler(b)
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				post(b, h)
			}
		})
	})
}
