package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/tokenize"
)

// TestTour: the three parts and the commands to try, in order.
func TestTour(t *testing.T) {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Tour(&b, tok); err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, want := range []string{"A worked example: three queries", "Part 2: the evidence boundary", "The full report: ragstat demo --write ex/", "Part 3:", "Try next, with the ragstat command on your PATH", "(then ./ragstat):\n  ragstat demo --write ex/"} {
		i := strings.Index(b.String()[at:], want)
		if i < 0 {
			t.Fatalf("%q missing after byte %d:\n%s", want, at, b.String())
		}
		at += i
	}
}

// TestServeRefuses: the generator listens on loopback only, on HOST:PORT.
func TestServeRefuses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for addr, want := range map[string]string{
		"127.0.0.1":     "generator 127.0.0.1: give HOST:PORT",
		"0.0.0.0:8089":  "generator 0.0.0.0:8089: the demo's generator listens on loopback only",
		"example.com:1": "generator example.com:1: the demo's generator listens on loopback only",
	} {
		if err := Serve(ctx, addr, func(string) { t.Errorf("%s: listening", addr) }); err == nil || err.Error() != want {
			t.Errorf("%s: err %v, want %q", addr, err, want)
		}
	}
	var url string
	if err := Serve(ctx, "127.0.0.1:0", func(u string) { url = u }); err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("loopback: err %v, url %q", err, url)
	}
}
