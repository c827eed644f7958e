package report

import (
	"io"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
)

// benchEval is bench/run.sh's result: 10,000 queries and its 8 metrics.
func benchEval(b *testing.B) *Eval {
	ms, err := metric.ParseAll([]string{"R@10", "R@100", "R@1000", "RR@10", "nDCG@10", "nDCG@100", "P@10", "AP"})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	res := &eval.Result{Name: "run", File: "run.txt", Metrics: ms, Mean: make([]float64, len(ms))}
	for q := range 10000 {
		row := eval.Row{Query: strconv.Itoa(1000000 + q)}
		for range ms {
			row.Values = append(row.Values, rng.Float64())
		}
		res.Rows = append(res.Rows, row)
	}
	return &Eval{Tool: "ragstat", Version: "bench", Policy: eval.DefaultPolicy(), PerQuery: true, Results: []*eval.Result{res},
		Inputs: []Input{{Role: "judgments", Path: "qrels.txt", Format: "trec"}, {Role: "run", Path: "run.txt", Format: "trec"}}}
}

// countingWriter counts what a renderer writes and keeps none of it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// benchFormats runs render in each format as a sub-benchmark, reporting
// the bytes it writes.
func benchFormats(b *testing.B, formats []string, render func(w io.Writer, format string) error) {
	for _, format := range formats {
		b.Run(format, func(b *testing.B) {
			var size countingWriter
			if err := render(&size, format); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size.n)
			b.ReportAllocs()
			for b.Loop() {
				if err := render(io.Discard, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchRender(b *testing.B, render func(io.Writer, string, *Eval) error) {
	r := benchEval(b)
	benchFormats(b, Formats, func(w io.Writer, format string) error { return render(w, format, r) })
}

// BenchmarkRender writes the 10,000 queries x 8 metrics of bench/run.sh in
// every format.
func BenchmarkRender(b *testing.B) { benchRender(b, Render) }

// BenchmarkRenderReference writes the same with the reference renderers
// (encoding/json, encoding/csv, text/tabwriter, fmt), for comparison.
func BenchmarkRenderReference(b *testing.B) { benchRender(b, referenceRender) }

// BenchmarkRenderStages writes a stages result of one system whose three
// stages each carry bench/run.sh's 10,000 queries x 8 metrics, per query,
// as a table and as JSON.
func BenchmarkRenderStages(b *testing.B) {
	ev := benchEval(b)
	res := ev.Results[0]
	sys := &stages.System{Name: "run"}
	for k, name := range []string{"candidates", "reranked", "context"} {
		st := &stages.StageResult{Name: name, K: 10 * (k + 1), Eval: &eval.Result{Name: res.Name, File: res.File, Metrics: res.Metrics, Mean: res.Mean}}
		for _, row := range res.Rows {
			row.Returned = 10 * (k + 1)
			st.Eval.Rows = append(st.Eval.Rows, row)
		}
		sys.Stages = append(sys.Stages, st)
	}
	r := &Stages{Tool: "ragstat", Version: "bench", Policy: ev.Policy, Inputs: ev.Inputs, PerQuery: true,
		Result: &stages.Result{Systems: []*stages.System{sys}}}
	benchFormats(b, []string{"table", "json"}, func(w io.Writer, format string) error { return RenderStages(w, format, r) })
}
