package main

import "github.com/ragstat/ragstat/treceval"

type trecEvalCmd struct {
	Args []string `arg:"" optional:"" help:"trec_eval's own arguments: [-q] [-c] [-m measure[.params]]... qrels run"`
}

func (c *trecEvalCmd) Run(e *env) error {
	if code := treceval.Main(c.Args, e.stdin, e.stdout, e.stderr); code != 0 {
		return &exitError{code: code}
	}
	return nil
}
