package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/evalemit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/htmlreport"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/stagescmd"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/tokenscmd"
)

type stagesCmd struct {
	policyFlags `set:"cutoff_help=A stage's cutoff, NAME=K (repeatable, e.g. --k candidates=50 --k reranked=10); a stage without one is read whole."`
	mappingFlags
	stageFlags
	Topics          string            `required:"" placeholder:"FILE" help:"Topics (JSONL): text, tags, answerable, scopes, as_of, facts, answers; or nuggetizer's nugget file (TREC RAG 2024), its nuggets the required facts."`
	Corpus          string            `placeholder:"FILE" help:"Corpus (JSONL): item metadata (doc, revision, scope, valid_from, valid_to) and text."`
	Tokenizer       string            `placeholder:"NAME" help:"The generator's tokenizer for token budgets: cl100k_base, o200k_base, p50k_base, r50k_base or hf:tokenizer.json."`
	Truncated       string            `default:"error" enum:"error,inherit,drop" help:"A context item shorter than its corpus text whose judgment has no span: ${enum}."`
	UnknownMetadata string            `default:"error" enum:"error,allow" help:"With scopes or dates in play, an item with no metadata: ${enum}."`
	FailOnViolation bool              `help:"Exit 3 when an out-of-scope item appears in any stage."`
	Format          string            `short:"f" default:"table" enum:"table,json,html" help:"Output format (${enum}); html is the report ragstat report makes of the JSON."`
	PerQuery        bool              `help:"Print per-query rows and every lost item."`
	PerQueryOut     string            `placeholder:"FILE" help:"Write each trace's record (per-stage values, lost items, facts, budget, validity, answer) to FILE as it is evaluated: Parquet (a row per trace and stage) when it ends in .parquet, JSON Lines otherwise. (With the table and no --per-query, memory stays flat in the number of traces, with or without it.)"`
	Emit            string            `placeholder:"FORMAT" help:"Write the evaluations back onto the traces' spans, to --emit-out: otlp (gen_ai.evaluation.result log records, OTLP/JSON), openinference (annotation spans, OTLP/JSON) or langfuse (score objects, one a line). Needs traces imported from OTLP, LangSmith or Langfuse."`
	EmitOut         string            `placeholder:"FILE" help:"Where --emit writes (- for standard output)."`
	EmitEndpoint    string            `placeholder:"URL" help:"Where --emit posts its otlp or openinference form as OTLP/HTTP JSON, one request a line, once the report is out: a collector's /v1/logs (otlp), or a collector's or Phoenix's /v1/traces (openinference). Langfuse scores go to a file (--emit-out)."`
	EmitHeader      map[string]string `placeholder:"NAME=VALUE" help:"A header of every --emit-endpoint request (repeatable), e.g. an authorization."`
	EmitResource    map[string]string `placeholder:"NAME=VALUE" help:"A resource attribute of the otlp and openinference forms (repeatable), beside service.name=ragstat: openinference.project.name=PROJECT files the evaluation spans in that Phoenix project, with the traces they evaluate."`
	Force           bool              `help:"Overwrite --per-query-out's or --emit-out's FILE if it exists."`
	Shard           string            `placeholder:"I/N" help:"Evaluate only shard I of N (0 <= I < N): the queries whose id's FNV-1a 64-bit hash is I modulo N; merge the --format json parts with ragstat merge."`
	Analyses        bool              `help:"Add the analyses of the evidence boundary per system: score calibration per stage, redundancy, evidence position, stale items, cost."`
	Target          string            `placeholder:"precision=P|recall=R" help:"With --analyses: the score threshold each stage needs to keep this precision or recall."`
	Bins            int               `default:"10" help:"With --analyses: reliability-table bins."`
	Shingle         int               `default:"3" help:"With --analyses: words per shingle for near duplicates."`
	Jaccard         float64           `default:"0.8" help:"With --analyses: shingle Jaccard at or above which two items of a stage are near duplicates."`
	PassF1          float64           `name:"pass-f1" placeholder:"X" help:"With --analyses: beside evidence position, an answer matches a reference at token F1 >= X (default: exact match only)."`
	PriceIn         float64           `placeholder:"USD" help:"With --analyses and --tokenizer: price per million input tokens."`
	PriceOut        float64           `placeholder:"USD" help:"With --analyses and --tokenizer: price per million output tokens."`
	Traces          []string          `arg:"" placeholder:"TRACES" help:"Trace files: ragstat traces (JSONL, one per query and system), or OTLP, LangSmith or Langfuse files mapped as by import."`

	NuggetAssignments string  `placeholder:"FILE" help:"Nuggetizer's assignments (JSONL, TREC RAG 2024): answer lines give the answers' four nugget scores (strict and partial, vital and all) beside fact coverage; retrieval lines give the nuggets of --topics their supporting passages."`
	Confidence        float64 `default:"0.95" help:"Confidence level of the intervals of --labels ppi (default ${default})."`
}

// request is the flags as the stages evaluation's settings.
func (c *stagesCmd) request() settings.Stages {
	ev := c.settings()
	ev.Confidence = c.Confidence
	return settings.Stages{Eval: ev, Topics: c.Topics, Corpus: c.Corpus, Tokenizer: c.Tokenizer,
		StageCutoffs: c.K.ByStage, Truncated: c.Truncated, AllowNoMetadata: c.UnknownMetadata == "allow",
		Analyses: c.Analyses, Target: c.Target, Bins: c.Bins, Shingle: c.Shingle, Jaccard: c.Jaccard, PriceIn: c.PriceIn, PriceOut: c.PriceOut, PassF1: c.PassF1,
		NuggetAssignments: c.NuggetAssignments}
}

func (c *stagesCmd) Run(e *env) error {
	sel, err := settings.Select(c.Shard)
	if err != nil {
		return err
	}
	// Judgments and topics stay in memory while traces stream past them: a
	// tighter collector target keeps peak memory nearer what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	var mapped settings.Manifests
	var emitted evalemit.Counts
	var format evalemit.Format
	var endpoint *evalemit.Endpoint
	if c.Emit != "" || c.EmitOut != "" || c.EmitEndpoint != "" {
		if c.Emit == "" || c.EmitOut == "" && c.EmitEndpoint == "" {
			return errors.New("--emit goes with --emit-out or --emit-endpoint: the format and where to write it")
		}
		if format, err = evalemit.ParseFormat(c.Emit); err != nil {
			return fmt.Errorf("--emit: %v", err)
		}
		if c.EmitEndpoint != "" {
			endpoint = &evalemit.Endpoint{URL: c.EmitEndpoint, Headers: c.EmitHeader}
		}
	}
	run := stagescmd.Run{Emit: format, EmitOut: c.EmitOut, EmitTo: endpoint, EmitResource: c.EmitResource, Stages: c.request(), Traces: c.Traces, Shard: sel.Part(), Format: c.Format, PerQuery: c.PerQuery,
		PerQueryOut: c.PerQueryOut, Force: c.Force, FailOnViolation: c.FailOnViolation, Version: Version}
	run.Keep = sel.Keep()
	world := stagescmd.World{Files: c.files(e), Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Terminal: e.terminal,
		Now: time.Now, Formats: e.traceFormats(c.mappingFlags, c.stageFlags, &mapped), Mapped: &mapped,
		Preset: func(preset []string) { c.announcePreset(e, preset) }, Emitted: &emitted}
	violations, err := run.Run(world, func(r *report.Stages) error {
		render := func() error { return report.RenderStages(e.stdout, c.Format, r) }
		if c.Format == "html" {
			render = func() error { return htmlreport.Stages(e.stdout, r.Saved()) }
		}
		if err := render(); err != nil {
			return internal(err)
		}
		return nil
	})
	if err == nil && format != "" {
		fmt.Fprintf(e.stderr, "wrote %d evaluations (%s)", emitted.Written, format)
		if c.EmitOut != "" {
			fmt.Fprintf(e.stderr, " to %s", c.EmitOut)
		}
		if endpoint != nil {
			fmt.Fprintf(e.stderr, "; %s accepted %d requests", c.EmitEndpoint, emitted.Sent)
		}
		if emitted.Unlinked > 0 {
			fmt.Fprintf(e.stderr, "; %d left out: no span id recorded, or not an OTLP id", emitted.Unlinked)
		}
		fmt.Fprintln(e.stderr)
	}
	if err != nil || len(violations) == 0 {
		return err
	}
	return &exitError{code: exitGate, err: fmt.Errorf("permission violations:\n%s", strings.Join(violations, "\n"))}
}

type tokensCmd struct {
	Tokenizer string   `default:"o200k_base" placeholder:"NAME" help:"cl100k_base, o200k_base, p50k_base, r50k_base or hf:tokenizer.json (default ${default})."`
	Files     []string `arg:"" placeholder:"FILE" help:"Text files to count (- for stdin)."`
}

func (c *tokensCmd) Run(e *env) error {
	tok, err := settings.Tokenizer(c.Tokenizer)
	if err != nil {
		return err
	}
	err = tokenscmd.Count(e.stdout, tok, c.Files, e.stdin)
	if _, ok := errors.AsType[*tokenscmd.WriteError](err); ok {
		return nil // run reports a failed write to standard output, with exit 1
	}
	return err
}
