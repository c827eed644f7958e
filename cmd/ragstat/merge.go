package main

import (
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/mergecmd"
	"github.com/ragstat/ragstat/compare"
)

type mergeCmd struct {
	Format string `short:"f" default:"table" enum:"table,json,jsonl,csv,tsv,markdown,trec,html" help:"Output format (${enum}); compare parts: table, json, csv, markdown or html."`
	rowChoice
	CSVComments bool     `name:"csv-comments" help:"CSV of eval or compare parts: the settings, policy and notes as # lines above the header."`
	Parts       []string `arg:"" placeholder:"PARTIAL.json" help:"Every shard's result of ragstat eval, stages or compare --shard I/N --format json."`
}

func (c *mergeCmd) Run(e *env) error {
	out := mergecmd.Output{Format: c.Format, CSVComments: c.CSVComments, PerQuery: c.PerQuery, Summary: c.Summary,
		Compare: func(w io.Writer, r *compare.Result) ([]string, error) {
			return writeComparison(w, c.Format, c.CSVComments, r)
		}}
	res, err := mergecmd.Merge(c.Parts, e.stdin, out)
	if err != nil {
		return err
	}
	apart, err := res.Render(e.stdout)
	e.notes(apart...)
	if err != nil {
		return rendered(err)
	}
	return gate(e, res.Reasons)
}
