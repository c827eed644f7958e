package main

import (
	"fmt"

	"github.com/ragstat/ragstat/internal/demo"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/tokenize"
)

type demoCmd struct {
	Write string `placeholder:"DIR" help:"Write the example's files into DIR instead."`
	Force bool   `help:"With --write, replace files that exist."`
}

func (c *demoCmd) Run(e *env) error {
	if c.Write != "" {
		if err := demo.Write(c.Write, c.Force); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote the example files to %s\n", c.Write)
		return nil
	}
	rep, err := demo.Evaluate()
	if err != nil {
		return internal(err)
	}
	fmt.Fprintln(e.stdout, "The source document's example: three queries, two rankings, k=3, strict policy.")
	fmt.Fprintln(e.stdout)
	if err := report.Render(e.stdout, "table", rep); err != nil {
		return internal(err)
	}
	fmt.Fprintln(e.stdout)
	for _, s := range demo.Story(rep.Results[0], rep.Results[1]) {
		fmt.Fprintln(e.stdout, "- "+s)
	}
	if err := c.pipeline(e); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nTry next:")
	for _, s := range demo.Next {
		fmt.Fprintln(e.stdout, "  "+s)
	}
	return nil
}

// pipeline prints the second part: two pipelines evaluated stage by stage.
func (c *demoCmd) pipeline(e *env) error {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		return internal(err)
	}
	rep, err := demo.Pipeline(tok)
	if err != nil {
		return internal(err)
	}
	fmt.Fprintln(e.stdout, "\nPart 2: the evidence boundary. Two pipelines (v1, v2) traced stage by stage on a small")
	fmt.Fprintln(e.stdout, "multi-tenant support corpus (ragstat stages, o200k_base token counts).")
	for _, s := range demo.PipelineStory(rep.Result) {
		fmt.Fprintln(e.stdout, "- "+s)
	}
	fmt.Fprintln(e.stdout, "\nThe full report: ragstat demo --write ex/ && ragstat stages -j ex/pipeline/judgments.jsonl \\")
	fmt.Fprintln(e.stdout, "  --topics ex/pipeline/topics.jsonl --corpus ex/pipeline/corpus.jsonl --tokenizer o200k_base ex/pipeline/traces-*.jsonl")
	return nil
}
