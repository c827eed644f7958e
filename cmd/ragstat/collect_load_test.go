//go:build long

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// retrieval is an export of one OpenInference retriever span for query q,
// in trace i.
func retrieval(t *testing.T, q string, i int, asJSON bool) (string, []byte) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "load")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName("retrieve")
	sp.SetTraceID(traceID(i))
	sp.SetSpanID(pcommon.SpanID{2, byte(i >> 16), byte(i >> 8), byte(i)})
	a := sp.Attributes()
	a.PutStr("openinference.span.kind", "RETRIEVER")
	a.PutStr("input.value", q)
	for d := range 5 {
		a.PutStr(fmt.Sprintf("retrieval.documents.%d.document.id", d), fmt.Sprintf("doc%d", d))
		a.PutDouble(fmt.Sprintf("retrieval.documents.%d.document.score", d), 1/float64(d+1))
	}
	if asJSON {
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		if err != nil {
			t.Fatal(err)
		}
		return "application/json", b
	}
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return "application/x-protobuf", b
}

func traceID(i int) pcommon.TraceID { return pcommon.TraceID{1, byte(i >> 16), byte(i >> 8), byte(i)} }

// TestCollectLoad: 50 clients send 200 valid exports each while 8 slow
// senders trickle bodies and 8 decompression bombs keep arriving. Every
// valid export is acknowledged (a 503 is retried, as exporters do), within
// MaxWait; the receiver stays under 1 GiB; then it is killed with SIGKILL
// and ragstat import reads every acknowledged export from its file.
func TestCollectLoad(t *testing.T) {
	const clients, requests = 50, 200
	began := time.Now()
	bomb := otlpBomb()
	t.Logf("bomb of %d bytes made in %v", len(bomb), time.Since(began).Round(time.Millisecond))
	dir := t.TempDir()
	out := filepath.Join(dir, "spans.otlp.jsonl")
	c := startCollect(t, "--out", out)
	addr := strings.TrimPrefix(c.url, "http://")
	done := make(chan struct{})
	var hostile sync.WaitGroup
	var bombs, bombsRefused, slowCut atomic.Int64
	for range 8 {
		hostile.Go(func() { // a bomb every second
			client := &http.Client{Timeout: 30 * time.Second}
			for {
				select {
				case <-done:
					return
				default:
				}
				bombs.Add(1)
				if code, _ := c.post(client, "application/x-protobuf", "gzip", bomb); code == 413 {
					bombsRefused.Add(1)
				}
				time.Sleep(time.Second)
			}
		})
		hostile.Go(func() { // a body byte every second, reconnecting when cut off
			for {
				select {
				case <-done:
					return
				default:
				}
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-protobuf\r\nContent-Length: 100000\r\n\r\n", addr)
				go func() {
					for {
						if _, err := conn.Write([]byte{0x0a}); err != nil {
							return
						}
						time.Sleep(time.Second)
					}
				}()
				conn.SetReadDeadline(time.Now().Add(60 * time.Second))
				answer := make([]byte, 16)
				if n, _ := conn.Read(answer); strings.HasPrefix(string(answer[:n]), "HTTP/1.1 408") {
					slowCut.Add(1)
				}
				conn.Close()
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // the hostile senders are at it

	var mu sync.Mutex
	var latencies []time.Duration
	acked := map[int]bool{} // by trace
	var lost, retried atomic.Int64
	start := time.Now()
	var valid sync.WaitGroup
	for w := range clients {
		valid.Go(func() {
			client := &http.Client{Timeout: 10 * time.Second} // as OpenTelemetry exporters
			for i := range requests {
				q := fmt.Sprintf("c%d-r%d", w, i)
				ctype, body := retrieval(t, q, w*requests+i, i%2 == 0)
				ok := false
				for try := 0; try < 20 && !ok; try++ {
					began := time.Now()
					code, _ := c.post(client, ctype, "", body)
					took := time.Since(began)
					switch code {
					case 200:
						ok = true
						mu.Lock()
						latencies = append(latencies, took)
						acked[w*requests+i] = true
						mu.Unlock()
					case 503:
						retried.Add(1)
						time.Sleep(time.Second) // Retry-After
					default:
						t.Errorf("%s: status %d", q, code)
						try = 20
					}
				}
				if !ok {
					lost.Add(1)
				}
			}
		})
	}
	valid.Wait()
	elapsed := time.Since(start)
	// On a quiet machine the valid exports may end within the slow
	// senders' grace (5 s): wait for the first to be cut off, 20 s at most.
	for deadline := time.Now().Add(20 * time.Second); slowCut.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	_, peak := c.stop(t, os.Kill) // bombs and slow senders still arriving
	close(done)
	hostile.Wait()

	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	t.Logf("%d valid exports acknowledged, %d lost, %d retries after 503, in %v; latency p50 %v, p99 %v, max %v",
		len(acked), lost.Load(), retried.Load(), elapsed.Round(time.Millisecond), pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), latencies[len(latencies)-1].Round(time.Millisecond))
	t.Logf("%d bombs sent, %d refused with 413; %d slow senders cut off with 408; peak memory %d MiB", bombs.Load(), bombsRefused.Load(), slowCut.Load(), peak)
	if lost.Load() != 0 || len(acked) != clients*requests {
		t.Errorf("%d exports lost, %d acknowledged of %d", lost.Load(), len(acked), clients*requests)
	}
	if bombsRefused.Load() != bombs.Load() && bombsRefused.Load() < bombs.Load()-8 { // the last ones may meet the kill
		t.Errorf("%d of %d bombs refused", bombsRefused.Load(), bombs.Load())
	}
	if slowCut.Load() == 0 {
		t.Error("no slow sender was cut off")
	}
	if p99 := pct(0.99); p99 > 5*time.Second {
		t.Errorf("p99 latency %v, over the 5 s bound", p99)
	}
	if peak >= 1024 {
		t.Errorf("peak memory %d MiB, ceiling 1 GiB", peak)
	}

	t.Logf("receiver killed, hostile senders stopped after %v", time.Since(start).Round(time.Millisecond))
	traces := filepath.Join(dir, "traces.jsonl")
	began = time.Now()
	o := command(t, nil, "import", "otlp", out, "--out", traces)
	t.Logf("import took %v", time.Since(began).Round(time.Millisecond))
	if o.code != 0 {
		t.Fatalf("import: exit %d: %s", o.code, o.stderr)
	}
	data, err := os.ReadFile(traces)
	if err != nil {
		t.Fatal(err)
	}
	imported := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var tr struct{ Query string }
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		imported[tr.Query] = true
	}
	missing := 0
	for i := range acked { // the query id is the trace id: the spans carry none
		if !imported[traceID(i).String()] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d acknowledged exports are not among the imported traces", missing)
	}
	t.Logf("imported: %s", strings.TrimSpace(o.stderr))
}
