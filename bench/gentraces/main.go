// Command gentraces writes a large synthetic set of pipeline traces, with
// the judgments, topics and corpus they refer to, for benchmarking
// `ragstat stages`. The output depends only on the flags.
//
//	go run ./bench/gentraces -out DIR [-traces 100000] [-candidates 50] [-reranked 10] [-context 8] [-passage 1000]
package main

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

	"github.com/ragstat/ragstat/internal/synth"
)

type config struct {
	traces, candidates, reranked, context, passage int
}

func main() {
	var c config
	out := flag.String("out", "", "output directory")
	flag.IntVar(&c.traces, "traces", 100000, "traces (one per query)")
	flag.IntVar(&c.candidates, "candidates", 50, "candidates per query")
	flag.IntVar(&c.reranked, "reranked", 10, "reranked items per query")
	flag.IntVar(&c.context, "context", 8, "context passages per query")
	flag.IntVar(&c.passage, "passage", 1000, "bytes per passage")
	flag.Parse()
	if *out == "" {
		log.Fatal("-out DIR is required")
	}
	if err := c.write(*out); err != nil {
		log.Fatal(err)
	}
}

func (c config) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]*json.Encoder{}
	var closers []func() error
	for _, name := range []string{"traces.jsonl", "judgments.jsonl", "topics.jsonl"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		files[name] = json.NewEncoder(w)
		closers = append(closers, w.Flush, f.Close)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for q := range c.traces {
		if err := c.query(r, q, files); err != nil {
			return err
		}
	}
	for _, close := range closers {
		if err := close(); err != nil {
			return err
		}
	}
	return nil
}

type item struct {
	ID    string   `json:"id"`
	Score *float64 `json:"score,omitempty"`
	Text  string   `json:"text,omitempty"`
}

func (c config) query(r *rand.Rand, q int, files map[string]*json.Encoder) error {
	qid := fmt.Sprintf("q%06d", q)
	ids := make([]string, c.candidates)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-p%02d", qid, i)
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	stage := func(n int, text bool) []item {
		out := make([]item, n)
		for i := range out {
			s := float64(n - i)
			out[i] = item{ID: ids[i], Score: &s}
			if text {
				out[i].Text = synth.Passage(r, c.passage)
			}
		}
		return out
	}
	ctx := stage(c.context, true)
	texts := make([]string, len(ctx))
	for i, it := range ctx {
		texts[i] = "[" + it.ID + "] " + it.Text
	}
	trace := map[string]any{"query": qid, "system": "bench", "stages": []any{
		map[string]any{"name": "candidates", "items": stage(c.candidates, false)},
		map[string]any{"name": "reranked", "items": stage(c.reranked, false)},
		map[string]any{"name": "context", "budget_tokens": 4000, "answer_reserve_tokens": 300,
			"instructions": "Answer from the context and cite passage ids.", "request": "question " + qid,
			"text": strings.Join(texts, "\n\n"), "items": ctx}},
		"answer":     map[string]any{"text": "answer", "citations": []string{ids[0]}, "abstained": false},
		"latency_ms": map[string]float64{"candidates": 10 + r.Float64()*5, "reranked": 40 + r.Float64()*20, "generation": 800 + r.Float64()*300}}
	if err := files["traces.jsonl"].Encode(trace); err != nil {
		return err
	}
	// The top 16 candidates are judged (a pool), a few of them relevant;
	// the rest are unjudged, as in a real pooled collection.
	for i, id := range ids[:min(16, len(ids))] {
		grade := 0
		if i%5 == 0 {
			grade = 1 + i%3
		}
		if err := files["judgments.jsonl"].Encode(map[string]any{"query": qid, "item": id, "grade": grade}); err != nil {
			return err
		}
	}
	return files["topics.jsonl"].Encode(map[string]any{"id": qid, "text": "question " + qid,
		"facts": []any{map[string]any{"id": "f", "support": []any{map[string]string{"item": ids[0]}, map[string]string{"item": ids[min(12, len(ids)-1)]}}}}})
}
