package main

import (
	"fmt"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/shard"
)

type mergeCmd struct {
	Format   string   `short:"f" default:"table" enum:"table,json,jsonl,csv,tsv,markdown,trec" help:"Output format (${enum})."`
	PerQuery bool     `help:"Print a row per query (default: when there are at most 50 queries)."`
	Summary  bool     `help:"Print the means only."`
	Parts    []string `arg:"" placeholder:"PARTIAL.json" help:"Every shard's result of ragstat eval or stages --shard I/N --format json."`
}

func (c *mergeCmd) Run(e *env) error {
	if c.PerQuery && c.Summary {
		return fmt.Errorf("--per-query and --summary exclude each other")
	}
	if kind, err := c.kind(e); err != nil || kind == manifest.KindStages {
		if err != nil {
			return err
		}
		return c.stages(e)
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

// kind is the kind of result the first part holds.
func (c *mergeCmd) kind(e *env) (string, error) {
	if len(c.Parts) == 0 {
		return "", fmt.Errorf("no partial results to merge")
	}
	f, err := input.Open(c.Parts[0], e.stdin)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return shard.KindOf(f)
}

// stages merges the parts of ragstat stages --shard I/N --format json.
func (c *mergeCmd) stages(e *env) error {
	if c.Format != "table" && c.Format != "json" {
		return fmt.Errorf("stages results merge as table or json, not %s", c.Format)
	}
	parts := make([]*report.SavedStages, len(c.Parts))
	for i, path := range c.Parts {
		f, err := input.Open(path, e.stdin)
		if err != nil {
			return err
		}
		parts[i], err = report.ReadStages(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	rep, err := shard.MergeStages(c.Parts, parts)
	if err != nil {
		return err
	}
	rep.PerQuery = c.PerQuery
	if err := report.RenderStages(e.stdout, c.Format, rep); err != nil {
		return internal(err)
	}
	return nil
}
