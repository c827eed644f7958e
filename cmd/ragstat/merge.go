package main

import (
	"fmt"

	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/shard"
)

type mergeCmd struct {
	rowFlags
	Parts []string `arg:"" placeholder:"PARTIAL.json" help:"Every shard's result of ragstat eval --shard I/N --format json."`
}

func (c *mergeCmd) Run(e *env) error {
	if c.PerQuery && c.Summary {
		return errExclusive
	}
	parts := make([]*report.Saved, len(c.Parts))
	for i, path := range c.Parts {
		var err error
		if parts[i], err = readFile(e, path, report.Read); err != nil {
			return err
		}
	}
	m, err := shard.MergeEval(c.Parts, parts)
	if err != nil {
		return err
	}
	m.ChoosePerQuery(c.PerQuery, c.Summary)
	if err := report.Render(e.stdout, c.Format, m.Eval); err != nil {
		return internal(err)
	}
	for _, w := range report.Warnings(m.Results) {
		fmt.Fprintln(e.stderr, "ragstat:", w)
	}
	return nil
}
