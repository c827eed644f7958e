package localhttp

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestLoopbackHost(t *testing.T) {
	for _, c := range []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"localhost:4318", true},
		{"LOCALHOST:1", true},
		{"app.localhost:80", true},
		{"127.0.0.1:4318", true},
		{"127.3.2.1", true},
		{"[::1]:4318", true},
		{"::1", true},
		{"evil.example:4318", false},
		{"localhost.evil.example", false},
		{"10.0.0.1:4318", false},
		{"", false},
	} {
		if got := LoopbackHost(c.host); got != c.want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", c.host, got, c.want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, true},
		{&net.TCPAddr{IP: net.IPv6loopback}, true},
		{&net.TCPAddr{IP: net.IPv4zero}, false},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2)}, false},
		{&net.UnixAddr{Name: "/x", Net: "unix"}, false},
	} {
		if got := IsLoopback(c.addr); got != c.want {
			t.Errorf("IsLoopback(%v) = %v, want %v", c.addr, got, c.want)
		}
	}
}

func TestToken(t *testing.T) {
	a, err := RandomToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RandomToken()
	if len(a) != 64 || a == b {
		t.Fatalf("tokens %q and %q", a, b)
	}
	if !TokenEqual(a, a) || TokenEqual(a, b) || TokenEqual("", a) || TokenEqual(a[:63], a) {
		t.Error("TokenEqual is wrong")
	}
}

// TestServe: when its context ends, Serve lets a request in flight finish
// before it returns.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		io.WriteString(w, "done")
	})}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, srv, ln, 10*time.Second) }()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-started
	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if b := <-got; b != "done" {
		t.Errorf("the request in flight got %q", b)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
