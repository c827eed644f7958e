package llm_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/internal/sharedtest"
)

// counting answers every request with its model's name, counting them.
type counting struct{ sent int }

func (g *counting) Generate(_ context.Context, _ string, req llm.Request) (llm.Response, error) {
	g.sent++
	return llm.Response{Text: "answer of " + req.Model}, nil
}

// TestCacheFile: the cache file is read as every JSON Lines file is (a
// byte-order mark skipped, a key given twice or an unknown field an error
// naming the line); an unfinished last line, left by a run killed while it
// wrote, is removed and counted, and a whole last line without its newline
// kept, so that the next answer starts a line of its own and the file
// reads again whole.
func TestCacheFile(t *testing.T) {
	const endpoint = "http://127.0.0.1:1/v1"
	req := func(model string) llm.Request {
		return llm.Request{Model: model, Messages: []llm.Message{{Role: "user", Content: "q"}}}
	}
	line := func(model string) string {
		b, err := json.Marshal(map[string]any{"key": llm.Key(endpoint, req(model)), "response": map[string]any{"text": "cached " + model}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, b := line("a"), line("b")
	for _, c := range []struct {
		name, file string
		hits       int // of requests a and b
		dropped    int64
		err        string
	}{
		{"whole lines", a + "\n" + b + "\n", 2, 0, ""},
		{"an unfinished last line", a + "\n" + b[:len(b)/2], 1, int64(len(b) / 2), ""},
		{"a whole last line without its newline", a + "\n" + b, 2, 0, ""},
		{"a byte-order mark", "\ufeff" + a + "\n", 1, 0, ""},
		{"a key twice", strings.Replace(a, `{"key"`, `{"key":"x","key"`, 1) + "\n", 0, 0, `:1: not a cached answer: key "key" given twice`},
		{"an unknown field", strings.Replace(b, `{"key"`, `{"extra":1,"key"`, 1) + "\n", 0, 0, `:1: not a cached answer: `},
		{"a blank line", a + "\n\n" + b + "\n", 0, 0, ":2: blank line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cache.jsonl")
			if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			gen := &counting{}
			cache, err := llm.OpenCache(path, endpoint, gen)
			if sharedtest.WantErr(t, err, c.err) {
				return
			}
			if cache.Dropped != c.dropped {
				t.Errorf("dropped %d bytes, want %d", cache.Dropped, c.dropped)
			}
			for _, m := range []string{"a", "b", "c"} {
				if _, err := cache.Generate(context.Background(), m, req(m)); err != nil {
					t.Fatal(err)
				}
			}
			if cache.Hits != c.hits || gen.sent != 3-c.hits {
				t.Errorf("%d answers from the file, %d sent; want %d and %d", cache.Hits, gen.sent, c.hits, 3-c.hits)
			}
			// Every answer, cached or new, is read back from the file.
			again, err := llm.OpenCache(path, endpoint, gen)
			if err != nil {
				t.Fatalf("reopening: %v", err)
			}
			for _, m := range []string{"a", "b", "c"} {
				again.Generate(context.Background(), m, req(m))
			}
			if again.Hits != 3 || again.Dropped != 0 {
				t.Errorf("reopened: %d hits, %d bytes dropped; want 3 and 0", again.Hits, again.Dropped)
			}
			if c.dropped > 0 && !strings.Contains(cache.Note(), "an unfinished last line of") {
				t.Errorf("note %q", cache.Note())
			}
		})
	}
}
