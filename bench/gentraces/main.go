// Command gentraces writes a large synthetic set of pipeline traces, with
// the judgments, topics and corpus they refer to, for benchmarking
// `ragstat stages`. The output depends only on the flags.
//
//	go run ./bench/gentraces -out DIR [-traces 100000] [-candidates 50] [-reranked 10] [-context 8] [-passage 1000]
package main

import (
	"math/rand/v2"

	"github.com/ragstat/ragstat/internal/synth"
)

type config struct {
	synth.Pipeline
	traces int
}

func main() {
	var c config
	synth.Main(&c.traces, 100000, &c.Pipeline, nil, func(dir string) error { return c.write(dir) })
}

func (c config) write(dir string) error {
	files, closeAll, err := synth.Create(dir, "traces.jsonl", "judgments.jsonl", "topics.jsonl")
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	for q := range c.traces {
		if err := c.Query(r, q, files["traces.jsonl"].Enc, files["judgments.jsonl"].Enc, files["topics.jsonl"].Enc); err != nil {
			return err
		}
	}
	return closeAll()
}
