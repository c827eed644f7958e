package main

import (
	"fmt"

	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/shard"
)

type mergeCmd struct {
	rowFlags
	Parts []string `arg:"" placeholder:"PARTIAL.json" help:"Every shard's result of ragstat eval or stages --shard I/N --format json."`
}

func (c *mergeCmd) Run(e *env) error {
	if c.PerQuery && c.Summary {
		return errExclusive
	}
	if len(c.Parts) == 0 {
		return fmt.Errorf("no partial results to merge")
	}
	kind, err := readFile(e, c.Parts[0], shard.KindOf)
	if err != nil {
		return err
	}
	if kind == manifest.KindStages {
		return c.stages(e)
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

// stages merges the parts of ragstat stages --shard I/N --format json.
func (c *mergeCmd) stages(e *env) error {
	if c.Format != "table" && c.Format != "json" {
		return fmt.Errorf("stages results merge as table or json, not %s", c.Format)
	}
	parts := make([]*report.SavedStages, len(c.Parts))
	for i, path := range c.Parts {
		var err error
		if parts[i], err = readFile(e, path, report.ReadStages); err != nil {
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
