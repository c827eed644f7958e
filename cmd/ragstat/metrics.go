package main

import (
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/treceval"
)

type metricsCmd struct{}

func (metricsCmd) Run(e *env) error {
	if err := report.Metrics(e.stdout); err != nil {
		return internal(err)
	}
	return nil
}

type trecEvalCmd struct {
	Args []string `arg:"" optional:"" help:"trec_eval's own arguments: [-q] [-c] [-m measure[.params]]... qrels run"`
}

// Run exits as every ragstat command does: where trec_eval exits 1 (usage),
// 4 or 7 (a query or run it cannot evaluate), ragstat exits 2, bad input or
// usage; the message says what trec_eval would have said.
func (c *trecEvalCmd) Run(e *env) error {
	if code := treceval.Main(c.Args, e.stdin, e.stdout, e.stderr); code != 0 {
		return &exitError{code: exitInput}
	}
	return nil
}
