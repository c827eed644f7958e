package main

import (
	"fmt"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/shard"
)

type mergeCmd struct {
	Format   string   `short:"f" default:"table" enum:"table,json,jsonl,csv,tsv,markdown,trec" help:"Output format (${enum})."`
	PerQuery bool     `help:"Print a row per query (default: when there are at most 50 queries)."`
	Summary  bool     `help:"Print the means only."`
	Parts    []string `arg:"" placeholder:"PARTIAL.json" help:"Every shard's result of ragstat eval --shard I/N --format json."`
}

func (c *mergeCmd) Run(e *env) error {
	if c.PerQuery && c.Summary {
		return fmt.Errorf("--per-query and --summary exclude each other")
	}
	parts := make([]*report.Saved, len(c.Parts))
	for i, path := range c.Parts {
		f, err := input.Open(path, e.stdin)
		if err != nil {
			return err
		}
		parts[i], err = report.Read(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	m, err := shard.MergeEval(c.Parts, parts)
	if err != nil {
		return err
	}
	rep := m.Eval
	rep.PerQuery = c.PerQuery || !c.Summary && len(rep.Results) > 0 && len(rep.Results[0].Rows) <= 50
	rep.Notes = report.Notes(m.FoldedJudgments, rep.Policy, nil, rep.Results)
	if err := report.Render(e.stdout, c.Format, rep); err != nil {
		return internal(err)
	}
	for _, w := range report.Warnings(rep.Results) {
		fmt.Fprintln(e.stderr, "ragstat:", w)
	}
	return nil
}
