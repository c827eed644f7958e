// Package synth makes the deterministic data the benchmark generators
// write: passages of a given size drawn from a small vocabulary, the traces
// of a RAG pipeline built from them, the pooled judgments of a query, and
// the buffered files they go to.
package synth

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

var words = strings.Fields(`the refund policy allows returns within thirty days of delivery for most
items clearance products are final sale gift cards cannot be refunded shipping takes three to five
business days tenant limits apply per key and burst traffic is throttled the api returns errors when
quotas are exceeded contact support for exceptions invoices are issued monthly payments by card`)

// Passage is text of n bytes drawn from r.
func Passage(r *rand.Rand, n int) string {
	return fill(n, func(b *strings.Builder) { b.WriteString(words[r.IntN(len(words))]) })
}

// NumberedPassage is text of n bytes whose words carry numbers, so that a
// passage's opening does not recur by chance in another passage.
func NumberedPassage(r *rand.Rand, n int) string {
	return fill(n, func(b *strings.Builder) { fmt.Fprintf(b, "%s%d", words[r.IntN(len(words))], r.IntN(1000)) })
}

func fill(n int, word func(*strings.Builder)) string {
	var b strings.Builder
	for b.Len() < n {
		word(&b)
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

// Pipeline is the shape of the synthetic RAG traces bench/gentraces writes
// (bench/genotlp writes its spans to the same shape):
// for each query a trace of three stages (Candidates candidates, the first
// Reranked of them reranked, the first Context of those packed into a
// context with their text, Passage bytes each), the judgments of its top
// 16 candidates (a pool, a few relevant) and its topic with one required
// fact.
type Pipeline struct {
	Candidates, Reranked, Context, Passage int
}

// Flags declares c's fields on fs as -candidates, -reranked, -context and
// -passage, with the defaults of the generators.
func (c *Pipeline) Flags(fs *flag.FlagSet) {
	fs.IntVar(&c.Candidates, "candidates", 50, "candidates per query (documents the retriever returns)")
	fs.IntVar(&c.Reranked, "reranked", 10, "reranked items per query (documents the reranker keeps)")
	fs.IntVar(&c.Context, "context", 8, "passages packed into the context")
	fs.IntVar(&c.Passage, "passage", 1000, "bytes per passage")
}

type pipelineItem struct {
	ID    string   `json:"id"`
	Score *float64 `json:"score,omitempty"`
	Text  string   `json:"text,omitempty"`
}

// Query writes query number q's trace, judgments and topic, drawing from r.
func (c Pipeline) Query(r *rand.Rand, q int, traces, judgments, topics *json.Encoder) error {
	qid := fmt.Sprintf("q%06d", q)
	ids := make([]string, c.Candidates)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-p%02d", qid, i)
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	stage := func(n int, text bool) []pipelineItem {
		out := make([]pipelineItem, n)
		for i := range out {
			s := float64(n - i)
			out[i] = pipelineItem{ID: ids[i], Score: &s}
			if text {
				out[i].Text = Passage(r, c.Passage)
			}
		}
		return out
	}
	ctx := stage(c.Context, true)
	texts := make([]string, len(ctx))
	for i, it := range ctx {
		texts[i] = "[" + it.ID + "] " + it.Text
	}
	trace := map[string]any{"query": qid, "system": "bench", "stages": []any{
		map[string]any{"name": "candidates", "items": stage(c.Candidates, false)},
		map[string]any{"name": "reranked", "items": stage(c.Reranked, false)},
		map[string]any{"name": "context", "budget_tokens": 4000, "answer_reserve_tokens": 300,
			"instructions": "Answer from the context and cite passage ids.", "request": "question " + qid,
			"text": strings.Join(texts, "\n\n"), "items": ctx}},
		"answer":     map[string]any{"text": "answer", "citations": []string{ids[0]}, "abstained": false},
		"latency_ms": map[string]float64{"candidates": 10 + r.Float64()*5, "reranked": 40 + r.Float64()*20, "generation": 800 + r.Float64()*300}}
	if err := traces.Encode(trace); err != nil {
		return err
	}
	if err := Judge(judgments, qid, ids); err != nil {
		return err
	}
	return topics.Encode(map[string]any{"id": qid, "text": "question " + qid,
		"facts": []any{map[string]any{"id": "f", "support": []any{map[string]string{"item": ids[0]}, map[string]string{"item": ids[min(12, len(ids)-1)]}}}}})
}

// Judge writes the judgments of query qid whose candidates are ids, best
// first: the top 16 are judged (a pool), a few of them relevant; the rest
// are unjudged, as in a real pooled collection.
func Judge(enc *json.Encoder, qid string, ids []string) error {
	for i, id := range ids[:min(16, len(ids))] {
		grade := 0
		if i%5 == 0 {
			grade = 1 + i%3
		}
		if err := enc.Encode(map[string]any{"query": qid, "item": id, "grade": grade}); err != nil {
			return err
		}
	}
	return nil
}

// Out is one output file of a generator, buffered, with a JSON encoder
// writing to it.
type Out struct {
	*bufio.Writer
	Enc *json.Encoder
}

// Create makes dir and in it a file of each name; closeAll flushes and closes
// them all, returning the first error.
func Create(dir string, names ...string) (files map[string]Out, closeAll func() error, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	files = map[string]Out{}
	var closers []func() error
	for _, name := range names {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		files[name] = Out{w, json.NewEncoder(w)}
		closers = append(closers, w.Flush, f.Close)
	}
	return files, func() error {
		for _, c := range closers {
			if err := c(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// Main reads a generator's command line (-out DIR, required, -traces N,
// default traces, the pipeline's flags, then those more adds) and calls
// write with the folder; an error ends the program.
func Main(traces *int, defaultTraces int, p *Pipeline, more func(*flag.FlagSet), write func(dir string) error) {
	out := flag.String("out", "", "output directory")
	flag.IntVar(traces, "traces", defaultTraces, "traces (one per query)")
	p.Flags(flag.CommandLine)
	if more != nil {
		more(flag.CommandLine)
	}
	flag.Parse()
	if *out == "" {
		log.Fatal("-out DIR is required")
	}
	if err := write(*out); err != nil {
		log.Fatal(err)
	}
}
