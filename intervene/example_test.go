package intervene_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// reader stands in for a generator: it answers from the prompt alone.
type reader struct{}

func (reader) Generate(_ context.Context, _ string, req intervene.Request) (intervene.Response, error) {
	prompt := req.Messages[len(req.Messages)-1].Content
	if strings.Contains(prompt, "within 30 days") {
		return intervene.Response{Text: "Within 30 days [policy#2]."}, nil
	}
	return intervene.Response{Text: "I cannot tell [faq#1]."}, nil
}

// The controlled intervention on one failing query: the trace's context
// missed the evidence; the verified context, sent to the same generator,
// fixes the answer, so the context contributed.
func ExampleRun() {
	read := func(name, text string) *input.File { return input.FromBytes(name, []byte(text)) }
	qrels, _ := judgments.Read(read("qrels.jsonl", `{"query":"refund","item":"policy#2","grade":3,"spans":["within 30 days"]}`+"\n"), judgments.Options{})
	tps, _ := topics.Read(read("topics.jsonl", `{"id":"refund","text":"How long do I have?","answers":["Within 30 days."],`+
		`"facts":[{"id":"window","support":[{"item":"policy#2","span":"within 30 days"}]}]}`+"\n"))
	docs, _ := corpus.Read(read("corpus.jsonl", `{"id":"policy#2","text":"Returns within 30 days."}`+"\n"+`{"id":"faq#1","text":"Orders ship in a day."}`+"\n"))
	traces, err := trace.Read(read("traces.jsonl", `{"query":"refund","system":"v1","stages":[{"name":"context","request":"How long do I have?",`+
		`"text":"[faq#1] Orders ship in a day.","items":[{"id":"faq#1","text":"Orders ship in a day."}]}],`+
		`"answer":{"text":"I cannot tell [faq#1].","citations":["faq#1"]},"config":{"model":"m"}}`+"\n"))
	if err != nil {
		panic(err)
	}
	tok, _ := tokenize.New("o200k_base")
	res, err := intervene.Run(context.Background(), traces, intervene.Options{Judgments: qrels, Topics: tps, Corpus: docs,
		Tokenizer: tok, MinGrade: 1, Citation: regexp.MustCompile(`\[([^\]\s]+)\]`), Generator: reader{}})
	if err != nil {
		panic(err)
	}
	c := res.Cases[0]
	fmt.Printf("%s: %q -> %q: %s\n", c.Query, c.Original.Answer, c.Fixed.Answer, c.Verdict)
	// Output: refund: "I cannot tell [faq#1]." -> "Within 30 days [policy#2].": context contributed
}
