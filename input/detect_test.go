package input_test

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sniff"
)

// TestDetectFormat: the format is read from the first line, as a run's
// reader and a judgments reader read it, also when the head ends inside
// that line (a first line longer than what detection reads).
func TestDetectFormat(t *testing.T) {
	long := strings.Repeat("x", 100)
	const trec, jsonl, json = input.FormatTREC, input.FormatJSONL, input.FormatJSON
	cases := []struct {
		name, head string
		run, qrels input.Format
	}{
		{"trec", "q Q0 d 1 2.5 r\n", trec, trec},
		{"jsonl run", `{"query":"q","items":["d"]}` + "\n", jsonl, json},
		{"jsonl judgment", `{"query":"q","item":"d","grade":1}` + "\n", jsonl, jsonl},
		{"json object", `{"q":{"d":2.5}}`, json, json},
		{"json object, a query named query", `{"query":{"d":2.5}}`, json, json},
		{"jsonl run cut in its items", `{"query": "q", "items": ["` + long, jsonl, json},
		{"jsonl run cut in its query", `{"items": ["d"], "query": "` + long, jsonl, json},
		{"jsonl judgment cut in its item", `{"query":"q","item":"` + long, jsonl, jsonl},
		{"json object cut", `{"q": {"d": 2.5, "` + long, json, json},
		{"cut after a key", `{"query"`, json, json},
		{"blank lines first", "\n\n  q 0 d 1\n", trec, trec},
	}
	for _, c := range cases {
		if got := input.DetectFormat([]byte(c.head), sniff.RunLine); got != c.run {
			t.Errorf("%s: run format %q, want %q", c.name, got, c.run)
		}
		if got := input.DetectFormat([]byte(c.head), sniff.JudgmentLine); got != c.qrels {
			t.Errorf("%s: judgments format %q, want %q", c.name, got, c.qrels)
		}
	}
}
