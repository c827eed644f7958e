package collect

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestRunStdout receives three exports with the output on standard
// output, on the OTLP/HTTP path, the Langfuse path and OTLP/gRPC, then
// stops cleanly when its context ends.
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
		st, err := Run(ctx, RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 64, MaxSpans: DefaultMaxSpans, MaxInFlightMiB: 256, MinRateKiB: 16, GRPCAddr: "127.0.0.1:0", Path: "-", Stdout: &stdout, Out: pw})
		pw.Close()
		done <- result{st, err}
	}()
	var url, grpcAddr string
	msgs := make([]byte, 4096)
	for n := 0; grpcAddr == ""; {
		m, err := pr.Read(msgs[n:])
		if err != nil {
			t.Fatalf("no address: %q %v", msgs[:n], err)
		}
		n += m
		if m := receiving.FindSubmatch(msgs[:n]); m != nil {
			url = string(m[1])
		}
		if m := grpcAt.FindSubmatch(msgs[:n]); m != nil {
			grpcAddr = string(m[1])
		}
	}
	go io.Copy(io.Discard, pr)
	for _, c := range []struct{ path, name string }{{TracesPath, "a"}, {LangfusePath, "b"}} {
		resp, err := http.Post(url+c.path, "application/json", bytes.NewReader(jsonBody(t, spans(c.name, 2))))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		resp.Body.Close()
	}
	cc, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	if _, err := ptraceotlp.NewGRPCClient(cc).Export(ctx, ptraceotlp.NewExportRequestFromTraces(spans("c", 1))); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case r := <-done:
		if r.err != nil || r.st != (Stats{Requests: 3, Spans: 5}) {
			t.Errorf("stopped with %+v, %v", r.st, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop")
	}
	if got := strings.Count(stdout.String(), "\n"); got != 3 || !strings.Contains(stdout.String(), `"name":"b-1"`) || !strings.Contains(stdout.String(), `"name":"c-0"`) {
		t.Errorf("standard output: %q", stdout.String())
	}
	if _, err := Run(ctx, RunOptions{Addr: "127.0.0.1:0", MaxBodyMiB: 64, MaxSpans: DefaultMaxSpans, MaxInFlightMiB: 256, MinRateKiB: 16, Path: "-", Mode: Append}); err == nil {
		t.Error("--append to standard output accepted")
	}
}

var grpcAt = regexp.MustCompile(`and OTLP/gRPC at (\S+) \(give`)

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
		got := flagname.Flagged(err)
		if tt.want == "" && !strings.Contains(got, "--append and --force apply to a file") || tt.want != "" && got != tt.want {
			t.Errorf("%d: %s, want %q", i, got, tt.want)
		}
	}
}
