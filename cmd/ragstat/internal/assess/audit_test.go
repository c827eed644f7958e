package assess

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/topics"
)

// TestAuditQueueBlind: the audit queue judge fill wrote is served like any
// queue: each passage with its query, and nothing of the LLM's label (its
// grade, its model, that an LLM graded it at all).
func TestAuditQueueBlind(t *testing.T) {
	dir := filepath.Join("..", "fill", "testdata")
	read := func(name string) *input.File { return must(t)(input.Open(filepath.Join(dir, name), nil)) }
	q, err := pool.ReadQueue(read("audit-queue.golden"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := corpus.Read(read("corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := topics.Read(read("topics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := NewTask("audit.jsonl", q, cs, ts)
	if err != nil {
		t.Fatal(err)
	}
	a := startWith(t, openDB(t, filepath.Join(t.TempDir(), "audit.db")), tk, "")
	// The labels of these pairs (filled.golden): q2/d and q3/d, grade 0 by
	// judge-1.
	for order, want := range map[int][]string{1: {"can clearance items be returned", "Our stores open at nine."}, 2: {"shipping costs for returns", "Our stores open at nine."}} {
		code, body := a.get(t, "/a/ann/e/"+string(rune('0'+order)))
		if code != 200 {
			t.Fatalf("entry %d: status %d", order, code)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("entry %d: the page lacks %q", order, w)
			}
		}
		lower := strings.ToLower(body)
		for _, leak := range []string{"judge-1", "llm", "final score", "prompt_sha256", "c92537a4"} {
			if strings.Contains(lower, leak) {
				t.Errorf("entry %d: the page shows %q", order, leak)
			}
		}
	}
}

func must(t *testing.T) func(*input.File, error) *input.File {
	return func(f *input.File, err error) *input.File {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
}
