package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/llm"
)

func TestReadBatchErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not json", "nope\n", "output.jsonl:1: not a Batch API output line"},
		{"no custom id", `{"response":{"status_code":200,"body":{"choices":[]}}}` + "\n", `output.jsonl:1: missing "custom_id"`},
		{"twice", `{"custom_id":"a","error":{"code":"x","message":"y"}}` + "\n" + `{"custom_id":"a","error":{"code":"x","message":"y"}}` + "\n", "output.jsonl:2: custom_id a appears twice"},
		{"neither", `{"custom_id":"a"}` + "\n", `neither "response" nor "error"`},
		{"no choices", `{"custom_id":"a","response":{"status_code":200,"body":{"choices":[]}}}` + "\n", "no choices"},
		{"key twice", `{"custom_id":"a","custom_id":"b","error":{"code":"x","message":"y"}}` + "\n", `output.jsonl:1: key "custom_id" given twice in one object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := llm.ReadBatch(input.FromBytes("output.jsonl", []byte(tc.data)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// A failed request is reported when its answer is asked for.
	b, err := llm.ReadBatch(input.FromBytes("output.jsonl", []byte(`{"custom_id":"a","error":{"code":"rate_limit","message":"later"}}`+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Generate(context.Background(), "a", llm.Request{}); err == nil || err.Error() != "the batch failed request a: rate_limit: later" {
		t.Errorf("failed request: %v", err)
	}
	if _, err := b.Generate(context.Background(), "b", llm.Request{}); err == nil {
		t.Error("a request the batch lacks is answered")
	}
}
