package judgments

import (
	"strings"
	"testing"
)

// TestDetect: the format is read from the first line, also when head ends
// inside it (a first line longer than what detection reads); a run's heads
// (runs' TestDetect) read as the JSON object format or TREC.
func TestDetect(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		name, head string
		want       Format
	}{
		{"trec", "q Q0 d 1 2.5 r\n", TREC},
		{"jsonl run", `{"query":"q","items":["d"]}` + "\n", JSON},
		{"jsonl judgment", `{"query":"q","item":"d","grade":1}` + "\n", JSONL},
		{"json object", `{"q":{"d":2.5}}`, JSON},
		{"json object, a query named query", `{"query":{"d":2.5}}`, JSON},
		{"jsonl run cut in its items", `{"query": "q", "items": ["` + long, JSON},
		{"jsonl run cut in its query", `{"items": ["d"], "query": "` + long, JSON},
		{"jsonl judgment cut in its item", `{"query":"q","item":"` + long, JSONL},
		{"json object cut", `{"q": {"d": 2.5, "` + long, JSON},
		{"cut after a key", `{"query"`, JSON},
		{"blank lines first", "\n\n  q 0 d 1\n", TREC},
	}
	for _, c := range cases {
		if got := detect([]byte(c.head)); got != c.want {
			t.Errorf("%s: format %q, want %q", c.name, got, c.want)
		}
	}
}
