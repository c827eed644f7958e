package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/ragstat/ragstat/internal/childtest"
)

const childEnv = "RAGSTAT_COLLECT_CRASH_CHILD"

// TestCrashChild is the receiver process of TestCrash: it runs only when
// re-executed with the output path in its environment.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("runs as TestCrash's receiver process")
	}
	_, err := Run(context.Background(), RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 64, MaxSpans: DefaultMaxSpans, MaxInFlightMiB: 256, MinRateKiB: 16, Path: path, Mode: Append, Out: os.Stdout})
	fmt.Println("serve:", err)
	os.Exit(4)
}

var receiving = regexp.MustCompile(`Receiving OTLP traces at (http://\S+)/v1/traces`)

// startChild starts the receiver and returns it, its endpoint and what it
// said about the partial line it removed.
func startChild(t *testing.T, path string) (*childtest.Child, string, string) {
	t.Helper()
	c := childtest.Start(t, "TestCrashChild", childEnv, path, receiving)
	dropped := ""
	for _, l := range c.Before {
		if strings.HasPrefix(l, "Removed ") {
			dropped = l
		}
	}
	return c, c.Match[1], dropped
}

// TestCrash sends a stream of exports from four clients, protobuf and
// JSON, kills the receiver with SIGKILL in the middle of it, and checks
// that every request it acknowledged is in the file whole. Then a new
// receiver appends to the same file after cutting the line the kill may
// have left unfinished.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts receiver processes")
	}
	path := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	cmd, url, _ := startChild(t, path)
	client := &http.Client{Timeout: 10 * time.Second}
	var mu sync.Mutex
	acked := map[string]bool{}
	killAt := 150
	killed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				name := fmt.Sprintf("w%d-r%d", w, i)
				td := spans(name, 1+i%5)
				td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("padding", strings.Repeat("p", (i*7919)%50000))
				ctype, body := "application/x-protobuf", protoBody(t, td)
				if w%2 == 1 {
					ctype, body = "application/json", jsonBody(t, td)
				}
				resp, err := client.Post(url+"/v1/traces", ctype, bytes.NewReader(body))
				if err != nil {
					return // the receiver is gone: not acknowledged
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s: status %d", name, resp.StatusCode)
					return
				}
				mu.Lock()
				acked[name] = true
				if len(acked) >= killAt {
					once.Do(func() { close(killed) })
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-killed:
	case <-time.After(60 * time.Second):
		t.Fatal("the exports did not arrive in 60 s")
	}
	cmd.Kill(t) // requests are still in flight
	wg.Wait()

	kept, partial := stored(t, path)
	for name := range acked {
		if !kept[name] {
			t.Errorf("acknowledged request %s is not in the file", name)
		}
	}
	t.Logf("%d requests acknowledged, %d stored, a partial last line of %d bytes", len(acked), len(kept), partial)

	cmd, url, dropped := startChild(t, path)
	if want := fmt.Sprintf("Removed an unfinished last line of %d bytes from %s (it was never acknowledged).", partial, path); partial > 0 && dropped != want || partial == 0 && dropped != "" {
		t.Errorf("the restarted receiver said %q, want %q", dropped, want)
	}
	resp, err := client.Post(url+"/v1/traces", "application/json", bytes.NewReader(jsonBody(t, spans("after", 1))))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after restart: %v %v", resp, err)
	}
	resp.Body.Close()
	cmd.Kill(t)
	again, partial := stored(t, path)
	if partial != 0 || !again["after"] || len(again) != len(kept)+1 {
		t.Errorf("after restart: %d requests stored (had %d), partial line %d bytes", len(again), len(kept), partial)
	}
}

// stored reads the file: the first span name of each whole line, and the
// length of an unfinished last line. Every whole line must be OTLP/JSON.
func stored(t *testing.T, path string) (map[string]bool, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	partial := 0
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		partial = len(data) - i - 1
		data = data[:i+1]
	}
	out := map[string]bool{}
	for n, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(l)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		name := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Name()
		out[strings.TrimSuffix(name, "-0")] = true
	}
	return out, partial
}
