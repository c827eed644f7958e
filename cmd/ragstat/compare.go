package main

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/comparecmd"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/htmlreport"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/compare"
)

type compareCmd struct {
	policyFlags `set:"cutoff_help=Cutoff of the default metrics R@K RR@K nDCG@K (default 10); over traces also NAME=K, one stage's cutoff (repeatable)."`
	mappingFlags
	stageFlags
	Topics                      string   `placeholder:"FILE" help:"Topics (JSONL): query text for the regressions, tags and fields for slices; or nuggetizer's nugget file (TREC RAG 2024), its nuggets the required facts."`
	NuggetAssignments           string   `placeholder:"FILE" help:"Nuggetizer's assignments (JSONL, TREC RAG 2024): the passages its retrieval lines assign support the nuggets of --topics, for the fact coverage of traces."`
	Corpus                      string   `placeholder:"FILE" help:"The corpus snapshot, recorded by digest in the manifest."`
	Tokenizer                   string   `placeholder:"NAME" help:"The generator's tokenizer, recorded in the manifest."`
	SliceBy                     []string `placeholder:"FIELD" help:"Slice queries by a topic field (repeatable): tag, tag:PREFIX, family, answerable. Default with --topics: tag."`
	MinSlice                    int      `default:"10" help:"A slice with fewer queries is marked too small and not tested."`
	Top                         int      `default:"10" help:"How many largest regressions and improvements to list per metric."`
	Seed                        uint64   `default:"1" help:"Seed of the bootstrap and randomization draws (printed)."`
	Resamples                   int      `default:"10000" help:"Bootstrap resamples of whole queries."`
	Randomizations              int      `default:"10000" help:"Random sign vectors of the randomization test (exact enumeration up to 20 queries)."`
	Level                       float64  `default:"0.95" help:"Confidence level of the intervals; significance is adjusted p < 1 - level."`
	Interval                    string   `default:"percentile" enum:"percentile,bca" help:"Bootstrap interval: ${enum}."`
	Correction                  string   `default:"holm" enum:"holm,bonferroni,bh,none" help:"Multiple-comparison correction: ${enum}."`
	AllowMismatch               []string `placeholder:"FIELD" help:"Compare although FIELD differs between inputs (repeatable, one field each): judgments, policy.*, metrics, query_set."`
	FailOn                      []string `placeholder:"RULE" help:"Gate: exit 3 when a mean difference meets RULE, e.g. 'nDCG@10 < -0.01' or 'R@100[tag:legal] < 0' (repeatable)."`
	FailOnSignificantRegression bool     `help:"Gate: exit 3 when any metric is significantly worse after correction on the whole set (or a --gate-slice)."`
	GateSlice                   []string `placeholder:"SLICE" help:"A slice also checked by --fail-on-significant-regression (repeatable), e.g. tag:legal."`
	Quality                     string   `placeholder:"METRIC" help:"Traces: the metric whose mean is each system's quality beside its cost and p90 latency (default: the last stage's first metric)."`
	PriceIn                     float64  `placeholder:"USD" help:"Traces, with --tokenizer: price per million input tokens, for each system's cost per query."`
	PriceOut                    float64  `placeholder:"USD" help:"Traces, with --tokenizer: price per million output tokens."`
	Format                      string   `short:"f" default:"table" enum:"table,json,csv,markdown,html" help:"Output format (${enum})."`
	Shard                       string   `placeholder:"I/N" help:"Compare only shard I of N (0 <= I < N): the queries whose id's FNV-1a 64-bit hash is I modulo N; merge the --format json parts with ragstat merge."`
	CSVComments                 bool     `name:"csv-comments" help:"CSV as before: the settings, policy and notes as # lines above the header (default: columns, notes to stderr)."`
	Systems                     []string `arg:"" placeholder:"BASE CAND" help:"Base then candidates: runs (PATH or NAME=PATH), saved ragstat eval --format json results (all their runs), or traces (ragstat's, OTLP, LangSmith, Langfuse)."`
}

func (c *compareCmd) Run(e *env) error {
	req := comparecmd.Request{Eval: c.settings(), Topics: c.Topics, Corpus: c.Corpus, NuggetAssignments: c.NuggetAssignments, Tokenizer: c.Tokenizer,
		RunFormat: c.RunFormat, StageCutoffs: c.K.ByStage, SliceBy: c.SliceBy, MinSlice: c.MinSlice, Top: c.Top,
		Resamples: c.Resamples, Randomizations: c.Randomizations, Seed: c.Seed, Level: c.Level, Interval: c.Interval,
		Correction: c.Correction, AllowMismatch: c.AllowMismatch, FailOn: c.FailOn,
		FailOnSignificant: c.FailOnSignificantRegression, GateSlices: c.GateSlice,
		Quality: c.Quality, PriceIn: c.PriceIn, PriceOut: c.PriceOut, Format: c.Format}
	cfg, err := req.Config()
	if err != nil {
		return err
	}
	sel, err := settings.Select(c.Shard)
	if err != nil {
		return err
	}
	files := c.files(e)
	sel.Read(&files)
	var mapped settings.Manifests
	res, reasons, err := req.Compare(cfg, comparecmd.Sources{Files: files, Systems: c.Systems, Stdin: e.stdin,
		Traces: e.traceFormats(c.mappingFlags, c.stageFlags, &mapped), Mapping: mapped.Of, Version: Version,
		Keep: sel.Keep(), Shard: sel.Part(), Opened: func(ev *settings.Evaluation) { c.announcePreset(e, ev.Preset) }})
	if err != nil {
		return err
	}
	apart, err := writeComparison(e.stdout, c.Format, c.CSVComments, res)
	e.notes(apart...)
	if err != nil {
		return internal(err)
	}
	return gate(e, reasons)
}

// writeComparison renders r in format (a report.CompareFormats name or html).
// It returns the lines the format has no place for (CSV without
// comments: compare.Result.Beyond), for the caller to show apart.
func writeComparison(w io.Writer, format string, csvComments bool, r *compare.Result) (apart []string, err error) {
	switch {
	case format == "html":
		return nil, htmlreport.Compare(w, r)
	case format == "csv" && !csvComments:
		return report.Beyond(r), report.ComparisonCSV(w, r, false)
	case format == "csv":
		return nil, report.ComparisonCSV(w, r, true)
	}
	return nil, report.RenderComparison(w, format, r)
}

// gate prints one line per reason and exits 3 when there is any.
func gate(e *env, reasons []string) error {
	if len(reasons) == 0 {
		return nil
	}
	for _, r := range reasons {
		fmt.Fprintln(e.stderr, "gate:", r)
	}
	return &exitError{code: exitGate, err: fmt.Errorf("the gate failed: %d reason(s)", len(reasons))}
}

type reportCmd struct {
	Result string `arg:"" placeholder:"RESULT.json" help:"A result saved with --format json by ragstat eval, stages or compare; - for stdin."`
}

func (c *reportCmd) Run(e *env) error {
	return htmlreport.Saved(e.stdout, c.Result, e.stdin)
}
