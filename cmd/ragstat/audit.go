package main

import (
	"github.com/ragstat/ragstat/cmd/ragstat/internal/audit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/auditcmd"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/htmlreport"
)

type auditCmd struct {
	policyFlags `set:"cutoff_help=Cutoff of the default metrics R@K RR@K nDCG@K (default 10); a query whose scope or pipeline has no more items than it is flagged k_too_large."`
	mappingFlags
	stageFlags
	Topics     string   `required:"" placeholder:"FILE" help:"Topics (JSONL or TSV): every query audited, its text, tags, scopes, facts."`
	Corpus     string   `placeholder:"FILE" help:"The corpus (JSONL): the BM25 baseline's passages, the relevant passages' words, what evidence is missing."`
	MaxOverlap float64  `default:"0.5" placeholder:"SHARE" help:"Leakage: the share of a query's content words found in its relevant passages at or above which it is flagged (default ${default})."`
	Shingle    int      `default:"3" help:"Near-duplicate queries: words per shingle (default ${default}, as stages --analyses)."`
	Jaccard    float64  `default:"0.8" help:"Near-duplicate queries: the Jaccard of their shingles at or above which two are near duplicates (default ${default})."`
	Level      float64  `default:"0.95" help:"Confidence level of the smallest detectable difference (80% power, as compare's gate power)."`
	SliceBy    []string `placeholder:"FIELD" help:"Count informative queries per slice of a topic field (repeatable): tag, tag:PREFIX, family, answerable. Default: tag."`
	FailOn     []string `placeholder:"RULE" help:"Gate: exit 3 when the set meets RULE (repeatable): informative<N (fewer than N informative queries) or REASON>SHARE, e.g. leakage>0.3."`
	Format     string   `short:"f" default:"table" enum:"table,json,markdown,html" help:"Output format (${enum})."`
	Systems    []string `arg:"" optional:"" placeholder:"RUN_OR_TRACES" help:"Systems to audit the set against: runs (PATH or NAME=PATH) or traces (ragstat's, OTLP, LangSmith, Langfuse); the first is the base of the resolution."`
}

func (c *auditCmd) Run(e *env) error {
	req := auditcmd.Request{Eval: c.settings(), Topics: c.Topics, Corpus: c.Corpus, RunFormat: c.RunFormat, FailOn: c.FailOn,
		Options: audit.Options{MaxOverlap: c.MaxOverlap, Shingle: c.Shingle, Jaccard: c.Jaccard, Level: c.Level, SliceBy: c.SliceBy}}
	rep, reasons, err := req.Audit(auditcmd.Sources{Files: e.files(), Systems: c.Systems, Stdin: e.stdin,
		Traces: e.traceFormats(c.mappingFlags, c.stageFlags, nil)})
	if err != nil {
		return err
	}
	if err := (audit.Output{Format: c.Format, HTML: htmlreport.Audit}).Write(e.stdout, rep); err != nil {
		return internal(err)
	}
	return gate(e, reasons)
}
