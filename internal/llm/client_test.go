package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/llm"
)

// TestClientHostileEndpoint: an endpoint that asks for an endless wait,
// redirects elsewhere or echoes the key gets a bounded, redacted error.
func TestClientHostileEndpoint(t *testing.T) {
	const key = "sk-test-0123456789"
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte(`{"choices":[{"message":{"content":"stolen"}}]}`))
	}))
	t.Cleanup(other.Close)
	handlers := map[string]http.HandlerFunc{
		"/wait/v1/chat/completions": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "999999")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		},
		"/redirect/v1/chat/completions": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
		},
		"/overflow/v1/chat/completions": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "99999999999999999")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		},
		"/echo/v1/chat/completions": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "invalid key "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), http.StatusUnauthorized)
		},
		"/echo500/v1/chat/completions": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "upstream rejected "+r.Header.Get("Authorization"), http.StatusInternalServerError)
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := handlers[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		name, path   string
		timeout, cap time.Duration
		want         string
		waits        []time.Duration
	}{
		{"Retry-After past the time limit", "/wait/v1", 2 * time.Second, 0, "would end past the time limit of 2s", nil},
		{"Retry-After capped", "/wait/v1", 0, 3 * time.Second, "429", []time.Duration{3 * time.Second, 3 * time.Second}},
		{"Retry-After past a Duration", "/overflow/v1", 0, 0, "429", []time.Duration{time.Minute, time.Minute}},
		{"redirect to another port", "/redirect/v1", time.Second, 0, "redirects are not followed", nil},
		{"key echoed in a 401", "/echo/v1", time.Second, 0, "invalid key REDACTED", nil},
		{"key echoed in a 500", "/echo500/v1", time.Second, 0, "upstream rejected Bearer REDACTED", []time.Duration{time.Millisecond, 2 * time.Millisecond}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var waits []time.Duration
			client := &llm.Client{Endpoint: srv.URL + c.path, APIKey: key, HTTP: &http.Client{Timeout: time.Second},
				Retries: 2, Backoff: time.Millisecond, Timeout: c.timeout, MaxRetryAfter: c.cap,
				Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			if c.path == "/redirect/v1" {
				gen, err := llm.Endpoint{URL: srv.URL + c.path, APIKey: key, Timeout: time.Second}.Open()
				if err != nil {
					t.Fatal(err)
				}
				client = gen.(*llm.Client)
			}
			_, err := client.Generate(context.Background(), "", llm.Request{Model: "m"})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), key) {
				t.Errorf("error %v, want %q and no key", err, c.want)
			}
			if len(waits) != len(c.waits) || c.waits != nil && waits[0] != c.waits[0] {
				t.Errorf("waited %v, want %v", waits, c.waits)
			}
		})
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("%d requests reached the server redirected to", n)
	}
}
