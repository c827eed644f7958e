package llm_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/llm"
)

// TestEndpoint: the client alone, or behind a cache in a folder made for it.
func TestEndpoint(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "new", "cache.jsonl")
	for _, c := range []struct {
		name string
		ep   llm.Endpoint
		gen  string
	}{
		{"no cache", llm.Endpoint{URL: "http://127.0.0.1:1/v1", RateLimit: 4, Timeout: time.Second}, "*llm.Client"},
		{"cache", llm.Endpoint{URL: "http://127.0.0.1:1/v1", Cache: cache}, "*llm.Cache"},
	} {
		t.Run(c.name, func(t *testing.T) {
			gen, err := c.ep.Open()
			if err != nil {
				t.Fatal(err)
			}
			switch g := gen.(type) {
			case *llm.Client:
				if c.gen != "*llm.Client" || g.Interval != 250*time.Millisecond || g.HTTP.Timeout != time.Second {
					t.Errorf("client %+v", g)
				}
			case *llm.Cache:
				if c.gen != "*llm.Cache" || g.Path() != cache || g.Note() != "cache: "+cache+" (0 of the answers came from it)" {
					t.Errorf("cache at %s: %s", g.Path(), g.Note())
				}
			}
		})
	}
	for _, c := range []struct {
		ep   llm.Endpoint
		want string
	}{
		{llm.Endpoint{URL: "http://h/v1", Retries: 2, RateLimit: 0.5, Timeout: time.Minute},
			"generator: http://h/v1 (retries 2, Retry-After waits of at most 1m0s, all within 1m0s a request; at most 0.5 requests a second)"},
		{llm.Endpoint{URL: "http://user:sk-secret@h:8/v1", Retries: 1, RateLimit: 1, Timeout: time.Second, MaxRetryAfter: 5 * time.Second},
			"generator: http://REDACTED@h:8/v1 (retries 1, Retry-After waits of at most 5s, all within 1s a request; at most 1 requests a second)"},
		{llm.Endpoint{URL: "http://h/v1?key=sk-secret", APIKey: "sk-secret", Timeout: time.Second},
			"generator: http://h/v1?key=REDACTED (retries 0, Retry-After waits of at most 1m0s, all within 1s a request; at most 0 requests a second)"},
	} {
		if note := c.ep.Note(); note != c.want {
			t.Errorf("note %q, want %q", note, c.want)
		}
	}
}

// TestConnect: what a command line names, with the notes of the report.
func TestConnect(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache.jsonl")
	env := func(key string) func(string) string {
		return func(name string) string {
			if name == "KEY" {
				return key
			}
			return ""
		}
	}
	for _, c := range []struct {
		name    string
		ep      llm.Endpoint
		noCache bool
		key     string
		gen     string
		notes   int
		err     string
	}{
		{"no endpoint", llm.Endpoint{}, false, "k", "", 0, "give {endpoint} URL"},
		{"negative wait", llm.Endpoint{URL: "http://127.0.0.1:1/v1", MaxRetryAfter: -time.Second}, false, "k", "", 0, "give durations of 0 or more"},
		{"no cache", llm.Endpoint{URL: "http://127.0.0.1:1/v1", Cache: cache}, true, "k", "*llm.Client", 2, ""},
		{"cache", llm.Endpoint{URL: "http://127.0.0.1:1/v1", Cache: cache}, false, "k", "*llm.Cache", 1, ""},
		{"no key", llm.Endpoint{URL: "http://127.0.0.1:1/v1"}, true, "", "*llm.Client", 3, ""},
		{"no cache unless one is named", llm.Endpoint{URL: "http://127.0.0.1:1/v1"}, false, "k", "*llm.Client", 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			gen, notes, err := c.ep.Connect("KEY", c.noCache, env(c.key))
			if c.err != "" {
				var oe *diag.OptionError
				if !errors.As(err, &oe) || !strings.Contains(oe.Msg, c.err) {
					t.Fatalf("got %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%T", gen); got != c.gen || len(notes) != c.notes {
				t.Errorf("%s with notes %q, want %s and %d notes", got, notes, c.gen, c.notes)
			}
			if cl, ok := gen.(*llm.Client); ok && cl.APIKey != c.key {
				t.Errorf("key %q, want %q", cl.APIKey, c.key)
			}
		})
	}
}
