package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/shard"
)

type mergeCmd struct {
	Format      string   `short:"f" default:"table" enum:"table,json,jsonl,csv,tsv,markdown,trec,html" help:"Output format (${enum}); compare parts: table, json, csv, markdown or html."`
	PerQuery    bool     `help:"Print a row per query (default: when there are at most 50 queries)."`
	Summary     bool     `help:"Print the means only."`
	CSVComments bool     `name:"csv-comments" help:"Compare parts, CSV: the settings, policy and notes as # lines above the header."`
	Parts       []string `arg:"" placeholder:"PARTIAL.json" help:"Every shard's result of ragstat eval, stages or compare --shard I/N --format json."`
}

func (c *mergeCmd) Run(e *env) error {
	if c.PerQuery && c.Summary {
		return errExclusive
	}
	if len(c.Parts) == 0 {
		return fmt.Errorf("no partial results to merge")
	}
	kinds := make([]string, len(c.Parts))
	for i, path := range c.Parts {
		var err error
		if kinds[i], err = input.Read(path, e.stdin, shard.KindOf); err != nil {
			return err
		}
	}
	kind, err := shard.OneKind(c.Parts, kinds)
	if err != nil {
		return err
	}
	switch {
	case kind == manifest.KindStages:
		return c.stages(e)
	case kind == manifest.KindCompare:
		return c.compare(e)
	case c.Format == "html":
		return fmt.Errorf("eval results merge as table, json, jsonl, csv, tsv, markdown or trec, not html")
	}
	parts := make([]*report.Saved, len(c.Parts))
	for i, path := range c.Parts {
		var err error
		if parts[i], err = input.Read(path, e.stdin, report.Read); err != nil {
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
		if parts[i], err = input.Read(path, e.stdin, report.ReadStages); err != nil {
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

// compare merges the parts of ragstat compare --shard I/N --format json,
// gated as one comparison.
func (c *mergeCmd) compare(e *env) error {
	if !slices.Contains(append(compare.Formats, "html"), c.Format) {
		return fmt.Errorf("compare results merge as %s or html, not %s", strings.Join(compare.Formats, ", "), c.Format)
	}
	parts := make([]*compare.Result, len(c.Parts))
	for i, path := range c.Parts {
		var err error
		if parts[i], err = input.Read(path, e.stdin, compare.Read); err != nil {
			return err
		}
	}
	res, reasons, err := shard.MergeCompare(c.Parts, parts)
	if err != nil {
		return err
	}
	if err := (&compareCmd{Format: c.Format, CSVComments: c.CSVComments}).render(e, res); err != nil {
		return internal(err)
	}
	return gate(e, reasons)
}
