package runs

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/judgments"
)

// TestDetect: the format is read from the first line, also when head ends
// inside it (a first line longer than what detection reads).
func TestDetect(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		name, head string
		run, qrels Format
	}{
		{"trec", "q Q0 d 1 2.5 r\n", TREC, TREC},
		{"jsonl run", `{"query":"q","items":["d"]}` + "\n", JSONL, JSON},
		{"jsonl judgment", `{"query":"q","item":"d","grade":1}` + "\n", JSONL, JSONL},
		{"json object", `{"q":{"d":2.5}}`, JSON, JSON},
		{"json object, a query named query", `{"query":{"d":2.5}}`, JSON, JSON},
		{"jsonl run cut in its items", `{"query": "q", "items": ["` + long, JSONL, JSON},
		{"jsonl run cut in its query", `{"items": ["d"], "query": "` + long, JSONL, JSON},
		{"jsonl judgment cut in its item", `{"query":"q","item":"` + long, JSONL, JSONL},
		{"json object cut", `{"q": {"d": 2.5, "` + long, JSON, JSON},
		{"cut after a key", `{"query"`, JSON, JSON},
		{"blank lines first", "\n\n  q 0 d 1\n", TREC, TREC},
	}
	for _, c := range cases {
		if got := Detect([]byte(c.head)); got != c.run {
			t.Errorf("%s: run format %q, want %q", c.name, got, c.run)
		}
		if got := judgments.Detect([]byte(c.head)); got != c.qrels {
			t.Errorf("%s: judgments format %q, want %q", c.name, got, c.qrels)
		}
	}
}
