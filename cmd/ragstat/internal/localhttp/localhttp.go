// Package localhttp holds the checks shared by ragstat's local HTTP servers
// (the assessment app, the OTLP receiver): a server on a loopback address
// answers only to loopback host names, so a web page cannot reach it through
// DNS rebinding, and a server bound anywhere else needs an access token.
package localhttp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"time"
)

// IsLoopback reports whether addr is on a loopback interface.
func IsLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// LoopbackHost reports whether a request's Host (with or without a port)
// names the loopback interface: localhost, a name under .localhost, or a
// loopback IP address.
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RandomToken returns 32 random bytes in hex.
func RandomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// TokenEqual compares a token presented by a client with the expected one
// in constant time.
func TokenEqual(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// Serve serves srv on ln until ctx ends, then shuts it down, letting the
// requests in flight finish for up to grace.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration) error {
	return Until(ctx, func() error { return srv.Serve(ln) }, func(<-chan error) error {
		shut, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		return srv.Shutdown(shut)
	})
}

// Until runs serve until it returns, with its error, or until ctx ends:
// then it stops the server with stop, which may wait for serve's error on
// served, and returns stop's error.
func Until(ctx context.Context, serve func() error, stop func(served <-chan error) error) error {
	served := make(chan error, 1)
	go func() { served <- serve() }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	return stop(served)
}
