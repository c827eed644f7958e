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
		st, err := Run(ctx, RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 64, MaxSpans: DefaultMaxSpans, MaxInFlightMiB: 256, MinRateKiB: 16, Path: "-", Stdout: &stdout, Out: pw})
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
	if _, err := Run(ctx, RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 64, MaxSpans: DefaultMaxSpans, MaxInFlightMiB: 256, MinRateKiB: 16, Path: "-", Mode: Append}); err == nil {
		t.Error("--append to standard output accepted")
	}
}

func TestRunLimits(t *testing.T) {
	ok := RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 16, MaxSpans: 10, MaxInFlightMiB: 64, MinRateKiB: 1, Path: "-", Mode: Append}
	tests := []struct {
		set  func(*RunOptions)
		want string // as a command line writes it; "" accepted
	}{
		{func(o *RunOptions) { o.MaxBodyMiB = 0 }, "--max-body-mib 0: give 1 to 1048576"},
		{func(o *RunOptions) { o.MaxBodyMiB = -3 }, "--max-body-mib -3: give 1 to 1048576"},
		{func(o *RunOptions) { o.MaxBodyMiB = MaxBodyMiB + 1 }, "--max-body-mib 1048577: give 1 to 1048576"},
		{func(o *RunOptions) { o.MaxBodyMiB = 1 }, ""},
		{func(o *RunOptions) { o.MaxBodyMiB, o.MaxInFlightMiB = MaxBodyMiB, 4*MaxBodyMiB }, ""},
		{func(o *RunOptions) { o.MaxSpans = 0 }, "--max-spans 0: give 1 to 1073741824"},
		{func(o *RunOptions) { o.MaxSpans = MaxLimit + 1 }, "--max-spans 1073741825: give 1 to 1073741824"},
		{func(o *RunOptions) { o.MinRateKiB = -1 }, "--min-rate-kib -1: give 1 to 1073741824"},
		{func(o *RunOptions) { o.MaxInFlightMiB = 0 }, "--max-inflight-mib 0: give 1 to 1073741824"},
		{func(o *RunOptions) { o.MaxInFlightMiB = 63 }, "--max-inflight-mib 63: give at least 4 times the body limit (64), or the largest request could not be decoded"},
		{func(o *RunOptions) { o.MaxInFlightMiB = 64 }, ""},
	}
	for i, tt := range tests {
		// An accepted limit gets as far as the next check: standard
		// output cannot be appended to.
		opt := ok
		tt.set(&opt)
		_, err := Run(context.Background(), opt)
		got := fmt.Sprint(diag.Flagged(err))
		if tt.want == "" && !strings.Contains(got, "--append and --force apply to a file") || tt.want != "" && got != tt.want {
			t.Errorf("%d: %s, want %q", i, got, tt.want)
		}
	}
}
