package demo

import (
	"context"
	"fmt"
	"regexp"

	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/traceimport"
)

// Intervention runs the controlled intervention on the second part's
// failing queries, with the Reader as the generator.
func Intervention(tok tokenize.Tokenizer) (*intervene.Result, error) {
	in, traces, err := pipelineInput()
	if err != nil {
		return nil, err
	}
	temperature := 0.0
	return intervene.Run(context.Background(), traces, intervene.Options{
		Judgments: in.Judgments, Topics: in.Topics, Corpus: in.Corpus, Tokenizer: tok, MinGrade: 1,
		Settings: intervene.Settings{Model: "demo-reader", Temperature: &temperature},
		Citation: regexp.MustCompile(traceimport.DefaultCitation), Abstain: regexp.MustCompile(regexp.QuoteMeta(Abstention)),
		Generator: Reader{},
	})
}

// InterventionStory says, for each failing query, what the same
// generator answered with the original context and with the verified one.
func InterventionStory(r *intervene.Result) []string {
	pass := map[bool]string{true: "passes", false: "fails"}
	var out []string
	for _, c := range r.Cases {
		out = append(out, fmt.Sprintf("%s, %q: original context %v: %q %s; verified %v: %q %s. Verdict: %s.",
			c.System, c.Query, c.Original.Items, c.Original.Answer, pass[c.Original.Pass],
			c.Verified.IDs(), c.Fixed.Answer, pass[c.Fixed.Pass], c.Verdict))
	}
	return out
}
