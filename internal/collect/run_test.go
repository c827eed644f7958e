package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/diag"
)

// TestRunStdout receives two exports with the output on standard output,
// then stops cleanly when its context ends.
func TestRunStdout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout bytes.Buffer
	pr, pw := io.Pipe()
	type result struct {
		st  Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := Run(ctx, RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 64, Path: "-", Stdout: &stdout, Out: pw})
		pw.Close()
		done <- result{st, err}
	}()
	var url string
	msgs := make([]byte, 4096)
	for n := 0; url == ""; {
		m, err := pr.Read(msgs[n:])
		if err != nil {
			t.Fatalf("no address: %q %v", msgs[:n], err)
		}
		n += m
		if m := receiving.FindSubmatch(msgs[:n]); m != nil {
			url = string(m[1])
		}
	}
	go io.Copy(io.Discard, pr)
	for _, name := range []string{"a", "b"} {
		resp, err := http.Post(url+TracesPath, "application/json", bytes.NewReader(jsonBody(t, spans(name, 2))))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		resp.Body.Close()
	}
	cancel()
	select {
	case r := <-done:
		if r.err != nil || r.st != (Stats{Requests: 2, Spans: 4}) {
			t.Errorf("stopped with %+v, %v", r.st, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop")
	}
	if got := strings.Count(stdout.String(), "\n"); got != 2 || !strings.Contains(stdout.String(), `"name":"b-1"`) {
		t.Errorf("standard output: %q", stdout.String())
	}
	if _, err := Run(ctx, RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 64, Path: "-", Mode: Append}); err == nil {
		t.Error("--append to standard output accepted")
	}
}

func TestRunBodyLimit(t *testing.T) {
	tests := []struct {
		mib  int64
		want string // as a command line writes it; "" accepted
	}{
		{0, "--max-body-mib 0: give 1 to 1048576"},
		{-3, "--max-body-mib -3: give 1 to 1048576"},
		{MaxBodyMiB + 1, "--max-body-mib 1048577: give 1 to 1048576"},
		{1, ""},
		{MaxBodyMiB, ""},
	}
	for _, tt := range tests {
		// An accepted limit gets as far as the next check: standard
		// output cannot be appended to.
		_, err := Run(context.Background(), RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: tt.mib, Path: "-", Mode: Append})
		got := fmt.Sprint(diag.Flagged(err))
		if tt.want == "" && !strings.Contains(got, "--append and --force apply to a file") || tt.want != "" && got != tt.want {
			t.Errorf("MaxBodyMiB %d: %s, want %q", tt.mib, got, tt.want)
		}
	}
}
