package demo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/llm"
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
	var out bytes.Buffer
	sc := bufio.NewScanner(&in)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var line struct {
			CustomID string            `json:"custom_id"`
			Method   string            `json:"method"`
			URL      string            `json:"url"`
			Body     intervene.Request `json:"body"`
		}
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.DisallowUnknownFields()
		if err := d.Decode(&line); err != nil {
			t.Fatalf("batch line %d: %v", n, err)
		}
		if line.Method != "POST" || line.URL != "/v1/chat/completions" || line.CustomID == "" || line.Body.Model != "reader-1" {
			t.Errorf("batch line %d: %s", n, sc.Bytes())
		}
		answer, _ := demo.Reader{}.Generate(context.Background(), line.CustomID, line.Body)
		fmt.Fprintf(&out, `{"id":"batch_req_%d","custom_id":%q,"response":{"status_code":200,"request_id":"req_%d","body":{"id":"chatcmpl-%d","object":"chat.completion","model":"reader-1","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}},"error":null}`+"\n",
			n, line.CustomID, n, n, answer.Text)
	}
	answers, err := llm.ReadBatch(input.FromBytes("output.jsonl", out.Bytes()))
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
