package demo_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/internal/llm/llmtest"
	"github.com/ragstat/ragstat/intervene"
)

// The offline path: write the requests as a Batch API input file, answer
// it as the provider would, read the output back: the verdicts are those
// of the live run.
func TestBatchRoundTrip(t *testing.T) {
	var batch llm.Batch
	opt, traces := options(t, &batch)
	res, err := intervene.Run(context.Background(), traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdicts[intervene.NotRun] != len(res.Cases) || batch.Len() != 2*len(res.Cases) {
		t.Fatalf("batched run: %v, %d requests", res.Verdicts, batch.Len())
	}
	var in bytes.Buffer
	if _, err := batch.WriteTo(&in); err != nil {
		t.Fatal(err)
	}
	out, _ := llmtest.AnswerBatch(t, in.Bytes(), func(id string, req llm.Request) string {
		if req.Model != "reader-1" {
			t.Errorf("request %s asks model %q", id, req.Model)
		}
		answer, _ := demo.Reader{}.Generate(context.Background(), id, req)
		return fmt.Sprintf(`{"id":"chatcmpl-%s","object":"chat.completion","model":"reader-1","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			id, answer.Text)
	})
	answers, err := llm.ReadBatch(input.FromBytes("output.jsonl", out))
	if err != nil {
		t.Fatal(err)
	}
	opt.Generator = answers
	offline, err := intervene.Run(context.Background(), traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	live, err := intervene.Run(context.Background(), traces, withGenerator(opt, demo.Reader{}))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(verdicts(offline), verdicts(live)) || mustJSON(t, offline) != mustJSON(t, live) {
		t.Errorf("offline %v, live %v", verdicts(offline), verdicts(live))
	}
}

func withGenerator(opt intervene.Options, g intervene.Generator) intervene.Options {
	opt.Generator = g
	return opt
}
