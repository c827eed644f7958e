package llmtest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/llm"
)

// TestAnswerBatch: what Batch writes, AnswerBatch answers, and ReadBatch
// reads back, each request under its own id.
func TestAnswerBatch(t *testing.T) {
	var batch llm.Batch
	for _, id := range []string{"q1", "q2"} {
		if _, err := batch.Generate(context.Background(), id, llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "say " + id}}}); !errors.Is(err, llm.ErrBatched) {
			t.Fatal(err)
		}
	}
	var in strings.Builder
	if _, err := batch.WriteTo(&in); err != nil {
		t.Fatal(err)
	}
	out, bodies := AnswerBatch(t, []byte(in.String()), func(id string, req llm.Request) string {
		return `{"choices":[{"message":{"role":"assistant","content":"` + strings.TrimPrefix(req.Messages[0].Content, "say ") + `"},"finish_reason":"stop"}]}`
	})
	if len(bodies) != 2 || !strings.Contains(string(bodies[1]), `"say q2"`) {
		t.Fatalf("bodies %s", bodies)
	}
	answers, err := llm.ReadBatch(input.FromBytes("output.jsonl", out))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q1", "q2"} {
		if r, err := answers.Generate(context.Background(), id, llm.Request{}); err != nil || r.Text != id {
			t.Errorf("%s: %+v, %v", id, r, err)
		}
	}
}
