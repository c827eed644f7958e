package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// field is one protobuf length-delimited field.
func field(num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
}

// emptySpans is an export of n empty spans in protobuf: two bytes each,
// as in a decompression bomb.
func emptySpans(n int) []byte {
	return field(1, field(2, bytes.Repeat([]byte{0x12, 0}, n)))
}

// emptyAttributes is an export of one span with n empty attributes.
func emptyAttributes(n int) []byte {
	return field(1, field(2, field(2, bytes.Repeat([]byte{0x4a, 0}, n))))
}

// post sends body to the handler and returns the answer.
func post(t *testing.T, h http.Handler, path, ctype, encoding string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.Host = "127.0.0.1:4318"
	req.Header.Set("Content-Type", ctype)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestLimits: each limit refuses a request with 413 naming the limit,
// counts it under its reason and logs the first of each reason only.
func TestLimits(t *testing.T) {
	jsonSpans := func(n int) []byte {
		return []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}]}]}`)
	}
	opt := Options{MaxBody: 1 << 20, MaxSpans: 1000, MaxInFlight: 4 << 20}
	for _, c := range []struct {
		name, ctype, encoding string
		body                  []byte
		reason                Reason
		msg                   string
	}{
		{"body", "application/x-protobuf", "", emptySpans(600 << 10), TooLarge, "body over 1048576 bytes (--max-body-mib)"},
		{"decompressed body", "application/x-protobuf", "gzip", gz(t, emptySpans(600<<10)), TooLarge, "body once decompressed over 1048576 bytes (--max-body-mib)"},
		{"spans", "application/x-protobuf", "", emptySpans(1001), TooManySpans, "more than 1000 spans in one request (--max-spans)"},
		{"spans as JSON", "application/json", "", jsonSpans(1001), TooManySpans, "more than 1000 spans in one request (--max-spans)"},
		{"gzip spans", "application/json", "gzip", gz(t, jsonSpans(1001)), TooManySpans, "(--max-spans)"},
		{"attributes", "application/x-protobuf", "", emptyAttributes(400 << 10), OverMemory, "more than 4 MiB, the limit for every request in flight together (--max-inflight-mib)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			o := opt
			o.Log = log.New(&logs, "", 0)
			s, path := newServer(t, loopback, o)
			for range 2 {
				rec := post(t, s.Handler(), TracesPath, c.ctype, c.encoding, c.body)
				if rec.Code != 413 || !strings.Contains(rec.Body.String(), c.msg) {
					t.Errorf("status %d %q, want 413 with %q", rec.Code, rec.Body, c.msg)
				}
			}
			st := s.Stats()
			if st.Refused != 2 || st.ByReason[c.reason] != 2 {
				t.Errorf("stats %+v, want 2 refused as %s", st, c.reason)
			}
			if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "refused a request ("+c.reason.String()+"): POST /v1/traces, Content-Type \""+c.ctype+"\"") {
				t.Errorf("%d lines logged:\n%s", n, logs.String())
			}
			if got := lines(t, path); len(got) != 0 {
				t.Errorf("%d lines written", len(got))
			}
			if n := s.mem.inUse(); n != 0 {
				t.Errorf("%d bytes still reserved", n)
			}
		})
	}
	t.Run("at the limits", func(t *testing.T) {
		s, path := newServer(t, loopback, opt)
		for _, c := range []struct {
			ctype string
			body  []byte
		}{{"application/x-protobuf", emptySpans(1000)}, {"application/json", jsonSpans(1000)}} {
			if rec := post(t, s.Handler(), LangfusePath, c.ctype, "", c.body); rec.Code != 200 {
				t.Errorf("status %d %q", rec.Code, rec.Body)
			}
		}
		if st := s.Stats(); st.Requests != 2 || st.Spans != 2000 {
			t.Errorf("stats %+v", st)
		}
		if got := lines(t, path); len(got) != 2 {
			t.Errorf("%d lines", len(got))
		}
	})
}

// TestBomb: the decompression bomb of a 62 MB export of 31 million empty
// spans, 270 KB as gzip, is refused without being decoded: by the body
// limit, and by the span count where the body limit lets it through.
func TestBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 62 MB export")
	}
	bomb := gz(t, emptySpans(31_000_000))
	t.Logf("bomb: %d bytes of gzip", len(bomb))
	for _, c := range []struct {
		name    string
		opt     Options
		code    int
		msg     string
		ceiling uint64 // MiB allocated while refusing it
	}{
		{"default limits", Options{}, 413, "body once decompressed over 16777216 bytes", 64},
		{"a 64 MiB body limit", Options{MaxBody: 64 << 20}, 413, "more than 100000 spans", 160},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newServer(t, loopback, c.opt)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rec := post(t, s.Handler(), TracesPath, "application/x-protobuf", "gzip", bomb)
			runtime.ReadMemStats(&after)
			if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.msg) {
				t.Errorf("status %d %q, want %d with %q", rec.Code, rec.Body, c.code, c.msg)
			}
			if mib := (after.TotalAlloc - before.TotalAlloc) >> 20; mib > c.ceiling {
				t.Errorf("%d MiB allocated refusing it, ceiling %d MiB", mib, c.ceiling)
			}
		})
	}
}

// TestSplitLines: a request whose OTLP/JSON is longer than the line limit
// is written as several lines, each within it, holding every span once
// with its resource and scope; a span alone over the limit is refused.
func TestSplitLines(t *testing.T) {
	if s, _ := newServer(t, loopback, Options{}); s.maxLine != traceimport.MaxRecord {
		t.Errorf("line limit %d, want the %d bytes ragstat import reads", s.maxLine, traceimport.MaxRecord)
	}
	td := spans("split", 7)
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "second")
	for k := range 2 {
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName(fmt.Sprint("scope", k))
		for i := range 5 {
			sp := ss.Spans().AppendEmpty()
			sp.SetName(fmt.Sprintf("s%d-%d", k, i))
			sp.SetTraceID(pcommon.TraceID{7, byte(k)})
			sp.SetSpanID(pcommon.SpanID{7, byte(k), byte(i)})
		}
	}
	s, path := newServer(t, loopback, Options{})
	s.maxLine = 1200
	if rec := post(t, s.Handler(), TracesPath, "application/x-protobuf", "", protoBody(t, td)); rec.Code != 200 {
		t.Fatalf("status %d %q", rec.Code, rec.Body)
	}
	got := lines(t, path)
	if len(got) < 3 {
		t.Errorf("%d lines", len(got))
	}
	names := map[string]string{} // span name: its resource's service and scope
	for _, l := range got {
		if n := len(jsonBody(t, l)); n >= s.maxLine {
			t.Errorf("a line of %d bytes", n)
		}
		for _, rs := range l.ResourceSpans().All() {
			svc, _ := rs.Resource().Attributes().Get("service.name")
			for _, ss := range rs.ScopeSpans().All() {
				for _, sp := range ss.Spans().All() {
					if _, dup := names[sp.Name()]; dup {
						t.Errorf("span %s twice", sp.Name())
					}
					names[sp.Name()] = svc.Str() + "/" + ss.Scope().Name()
				}
			}
		}
	}
	if len(names) != 17 || names["s1-4"] != "second/scope1" || names["split-6"] != "rag-app/test" {
		t.Errorf("spans written: %v", names)
	}
	if st := s.Stats(); st.Requests != 1 || st.Spans != 17 {
		t.Errorf("stats %+v", st)
	}
	// ragstat import reads the lines as they are written.
	f, err := input.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	man, err := traceimport.Import(traceimport.OTLP, []*input.File{f}, traceimport.Mapping{}, func(*trace.Trace) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if sum := man.Summary(); !strings.Contains(sum, fmt.Sprintf("from 17 otlp spans (%d records", len(got))) {
		t.Errorf("import: %s", sum)
	}
	big := spans("big", 1)
	big.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("text", strings.Repeat("x", 2000))
	if rec := post(t, s.Handler(), TracesPath, "application/x-protobuf", "", protoBody(t, big)); rec.Code != 413 || !strings.Contains(rec.Body.String(), "one span takes") {
		t.Errorf("status %d %q", rec.Code, rec.Body)
	}
}

// serve runs s on a loopback listener and returns its base URL.
func serve(t *testing.T, s *Server, ln net.Listener) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + ln.Addr().String()
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// TestSlowSenders: senders trickling their bodies are cut off once they
// fall under the minimum rate, and one that sends a burst and then stops
// once it pauses longer than the grace; while they hold their
// connections, small requests are served without waiting for them: they
// hold no decoding turn and little memory.
func TestSlowSenders(t *testing.T) {
	ln := listen(t)
	s, path := newServer(t, ln, Options{MinRate: 1 << 10})
	s.grace = 500 * time.Millisecond
	url := serve(t, s, ln)
	body := protoBody(t, spans("slow", 1))
	var wg sync.WaitGroup
	slow := make(chan string, 2*maxDecoding+1)
	wg.Go(func() { // 100 KB at once, which would earn 100 s at 1 KiB/s, then nothing
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\nContent-Length: 200000\r\n\r\n")
		conn.Write(make([]byte, 100000))
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		status, _ := io.ReadAll(io.LimitReader(conn, 512))
		slow <- string(status)
	})
	for range 2 * maxDecoding {
		wg.Go(func() {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\nContent-Length: %d\r\n\r\n", len(body))
			go func() { // a byte every 200 ms: 5 bytes a second
				for i := range body {
					if _, err := conn.Write(body[i : i+1]); err != nil {
						return
					}
					time.Sleep(200 * time.Millisecond)
				}
			}()
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			status, _ := io.ReadAll(io.LimitReader(conn, 512))
			slow <- string(status)
		})
	}
	time.Sleep(100 * time.Millisecond) // the slow senders are sending
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range 5 {
		start := time.Now()
		resp, err := client.Post(url+TracesPath, "application/json", bytes.NewReader(jsonBody(t, spans(fmt.Sprint("small", i), 2))))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if took := time.Since(start); resp.StatusCode != 200 || took > MaxWait {
			t.Errorf("small request: status %d after %v, want 200 within the %v bound", resp.StatusCode, took, MaxWait)
		}
	}
	wg.Wait()
	close(slow)
	for answer := range slow {
		if !strings.HasPrefix(answer, "HTTP/1.1 408") || !strings.Contains(answer, "slower than 1024 bytes a second") {
			t.Errorf("a slow sender was answered %q", answer)
		}
	}
	if st := s.Stats(); st.Requests != 5 || st.ByReason[TooSlow] != 2*maxDecoding+1 {
		t.Errorf("stats %+v", st)
	}
	if got := len(lines(t, path)); got != 5 {
		t.Errorf("%d lines", got)
	}
}

// TestBusy: a request that finds no memory free within the wait is
// answered 503 with Retry-After, and served once memory is free.
func TestBusy(t *testing.T) {
	s, _ := newServer(t, loopback, Options{MaxBody: 1 << 20, MaxInFlight: 4 << 20})
	s.wait = 100 * time.Millisecond
	body := protoBody(t, spans("busy", 1))
	if !s.mem.acquire(context.Background(), 4<<20, time.Now()) {
		t.Fatal("no memory to take")
	}
	rec := post(t, s.Handler(), TracesPath, "application/x-protobuf", "", body)
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "busy") {
		t.Errorf("status %d %q %v", rec.Code, rec.Body, rec.Header())
	}
	s.mem.release(4 << 20)
	if rec := post(t, s.Handler(), TracesPath, "application/x-protobuf", "", body); rec.Code != 200 {
		t.Errorf("status %d %q", rec.Code, rec.Body)
	}
	if st := s.Stats(); st.ByReason[Busy] != 1 || st.Requests != 1 {
		t.Errorf("stats %+v", st)
	}
}

// BenchmarkCount: counting a request's spans and messages on the wire,
// beside decoding it with pdata, for a batch of 512 spans of 20
// attributes, in protobuf and JSON.
func BenchmarkCount(b *testing.B) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range 512 {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(fmt.Sprint("span", i))
		sp.SetTraceID(pcommon.TraceID{byte(i)})
		sp.SetSpanID(pcommon.SpanID{byte(i), 1})
		for a := range 20 {
			sp.Attributes().PutStr(fmt.Sprint("attribute.", a), strings.Repeat("v", 40))
		}
	}
	for _, enc := range []encoding{protoEncoding, jsonEncoding} {
		var body []byte
		if enc.contentType == protoEncoding.contentType {
			body, _ = (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		} else {
			body, _ = (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		}
		b.Run("count/"+enc.contentType, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if c, err := enc.count(body, DefaultMaxSpans, 1<<30); err != nil || c.spans != 512 {
					b.Fatal(c, err)
				}
			}
		})
		b.Run("decode/"+enc.contentType, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := enc.decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
