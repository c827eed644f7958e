package stagescmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

func TestEvaluateStages(t *testing.T) {
	js, err := judgments.Read(input.FromBytes("qrels.txt", []byte("q1 0 a 1\n")), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := topics.Read(input.FromBytes("topics.jsonl", []byte(`{"id":"q1","text":"why"}`+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	traces, err := trace.Read(input.FromBytes("traces.jsonl",
		[]byte(`{"query":"q1","system":"s","stages":[{"name":"retrieved","items":[{"id":"a","score":1}]}]}`+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	req := settings.Stages{Eval: settings.Eval{MinGrade: 1}}
	p, _, err := req.Policy()
	if err != nil {
		t.Fatal(err)
	}
	opt, err := req.Options(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		is   func([]byte) bool
	}{
		{"records.jsonl", func(b []byte) bool { return bytes.HasPrefix(b, []byte(`{`)) && strings.Contains(string(b), `"q1"`) }},
		{"records.PARQUET", func(b []byte) bool { return bytes.HasPrefix(b, []byte("PAR1")) }},
	} {
		var buf bytes.Buffer
		res, err := evaluateStages(&buf, tt.path, stages.Input{Judgments: js, Topics: ts}, stages.Slice(traces), opt)
		if err != nil || res == nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if !tt.is(buf.Bytes()) {
			t.Errorf("%s: wrote %.40q", tt.path, buf.Bytes())
		}
	}
}
