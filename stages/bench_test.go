package stages

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/internal/synth"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// BenchmarkEvaluate runs what `ragstat stages --tokenizer o200k_base` does
// between reading the judgments and rendering, on 500 traces shaped like
// bench/stages.sh's (50 candidates, 10 reranked, 8 context passages of
// 1,000 bytes with the packed text): decoding each trace on every core,
// joining it, scoring its stages and counting its context's tokens.
func BenchmarkEvaluate(b *testing.B) { benchmarkEvaluate(b, false) }

// BenchmarkEvaluateSpilled is BenchmarkEvaluate with the judgments and
// topics in a temporary file (Request.Spill, as `--per-query-out` reads
// them) and a summary: `-memprofile` shows what a bounded run allocates.
func BenchmarkEvaluateSpilled(b *testing.B) { benchmarkEvaluate(b, true) }

func benchmarkEvaluate(b *testing.B, spill bool) {
	const n = 500
	var traces, qrels, tops bytes.Buffer
	r := rand.New(rand.NewPCG(1, 2))
	shape := synth.Pipeline{Candidates: 50, Reranked: 10, Context: 8, Passage: 1000}
	for q := range n {
		if err := shape.Query(r, q, json.NewEncoder(&traces), json.NewEncoder(&qrels), json.NewEncoder(&tops)); err != nil {
			b.Fatal(err)
		}
	}
	in, err := benchInput(qrels.Bytes(), tops.Bytes(), spill, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	opt := options()
	opt.Summary = spill
	opt.Policy.Unjudged = eval.UnjudgedNonrelevant
	opt.Cutoffs = map[string]int{"candidates": 50, "reranked": 10}
	if opt.Tokenizer, err = tokenize.New("o200k_base"); err != nil {
		b.Fatal(err)
	}
	scan := func(fn func(*trace.Trace) error) error {
		return trace.ScanRecords("traces.jsonl", func(each func(int, []byte) error) error {
			return jsonin.Lines(bytes.NewReader(traces.Bytes()), "traces.jsonl", input.FromBytes("traces.jsonl", nil), each)
		}, 0, fn)
	}
	b.SetBytes(int64(traces.Len()))
	for b.Loop() {
		if _, err := Evaluate(in, scan, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "traces/s")
}

// benchInput reads the judgments and topics whole, or spilled into dir
// (Spill, as --per-query-out reads them).
func benchInput(qrels, tops []byte, spill bool, dir string) (in Input, err error) {
	jf, tf := input.FromBytes("judgments.jsonl", qrels), input.FromBytes("topics.jsonl", tops)
	opt := judgments.Options{Scale: judgments.DefaultScale}
	if spill {
		stream := func(emit func(judgments.Judgment)) (input.Format, error) { return judgments.Stream(jf, opt, emit) }
		in.Spilled, err = Spill(jf.Name, stream, func() (*input.File, error) { return tf, nil }, topics.Options{}, opt.Scale, dir)
		return in, err
	}
	if in.Judgments, err = judgments.Read(jf, opt); err == nil {
		in.Topics, err = topics.Read(tf)
	}
	return in, err
}
