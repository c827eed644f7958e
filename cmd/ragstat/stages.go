package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/internal/progress"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/parquetio"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/shard"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/systems"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/traceimport"
)

type stagesCmd struct {
	policyFlags `set:"cutoff_help=A stage's cutoff, NAME=K (repeatable, e.g. --k candidates=50 --k reranked=10); a stage without one is read whole."`
	mappingFlags
	stageFlags
	Topics          string   `required:"" placeholder:"FILE" help:"Topics (JSONL): text, tags, answerable, scopes, as_of, facts, answers."`
	Corpus          string   `placeholder:"FILE" help:"Corpus (JSONL): item metadata (doc, revision, scope, valid_from, valid_to) and text."`
	Tokenizer       string   `placeholder:"NAME" help:"The generator's tokenizer for token budgets: cl100k_base, o200k_base, p50k_base, r50k_base or hf:tokenizer.json."`
	Truncated       string   `default:"error" enum:"error,inherit,drop" help:"A context item shorter than its corpus text whose judgment has no span: ${enum}."`
	UnknownMetadata string   `default:"error" enum:"error,allow" help:"With scopes or dates in play, an item with no metadata: ${enum}."`
	FailOnViolation bool     `help:"Exit 3 when an out-of-scope item appears in any stage."`
	Format          string   `short:"f" default:"table" enum:"table,json" help:"Output format (${enum})."`
	PerQuery        bool     `help:"Print per-query rows and every lost item."`
	PerQueryOut     string   `placeholder:"FILE" help:"Write each trace's record (per-stage values, lost items, facts, budget, validity, answer) to FILE as it is evaluated: Parquet (a row per trace and stage) when it ends in .parquet, JSON Lines otherwise. With the table and no --per-query, the result then holds sums only: memory stays bounded."`
	Force           bool     `help:"Overwrite --per-query-out's FILE if it exists."`
	Shard           string   `placeholder:"I/N" help:"Evaluate only shard I of N (0 <= I < N): the queries whose id's FNV-1a 64-bit hash is I modulo N; merge the --format json parts with ragstat merge."`
	Analyses        bool     `help:"Add the analyses of the evidence boundary per system: score calibration per stage, redundancy, evidence position, stale items, cost."`
	Target          string   `placeholder:"precision=P|recall=R" help:"With --analyses: the score threshold each stage needs to keep this precision or recall."`
	Bins            int      `default:"10" help:"With --analyses: reliability-table bins."`
	Shingle         int      `default:"3" help:"With --analyses: words per shingle for near duplicates."`
	Jaccard         float64  `default:"0.8" help:"With --analyses: shingle Jaccard at or above which two items of a stage are near duplicates."`
	PassF1          float64  `name:"pass-f1" placeholder:"X" help:"With --analyses: beside evidence position, an answer matches a reference at token F1 >= X (default: exact match only)."`
	PriceIn         float64  `placeholder:"USD" help:"With --analyses and --tokenizer: price per million input tokens."`
	PriceOut        float64  `placeholder:"USD" help:"With --analyses and --tokenizer: price per million output tokens."`
	Traces          []string `arg:"" placeholder:"TRACES" help:"Trace files: ragstat traces (JSONL, one per query and system), or OTLP, LangSmith or Langfuse files mapped as by import."`
}

// request is the flags in the library's words.
func (c *stagesCmd) request() stages.Request {
	return stages.Request{Settings: c.settings(), Topics: c.Topics, Corpus: c.Corpus, Tokenizer: c.Tokenizer,
		StageCutoffs: c.K.ByStage, Truncated: c.Truncated, AllowNoMetadata: c.UnknownMetadata == "allow",
		Analyses: c.Analyses, Target: c.Target, Bins: c.Bins, Shingle: c.Shingle, Jaccard: c.Jaccard, PriceIn: c.PriceIn, PriceOut: c.PriceOut, PassF1: c.PassF1}
}

func (c *stagesCmd) Run(e *env) error {
	req := c.request()
	p, preset, err := req.Policy()
	if err != nil {
		return err
	}
	c.announcePreset(e, preset)
	var part *manifest.Shard
	if c.Shard != "" {
		spec, err := shard.Parse(c.Shard)
		if err != nil {
			return err
		}
		req.Keep = spec.Has
		part = &manifest.Shard{Index: spec.Index, Count: spec.Count, Hash: shard.Hash}
	}
	opt, err := req.Options(p)
	if err != nil {
		return err
	}
	req.Spill = c.PerQueryOut != "" // bounded memory: judgments and topics wait in a temporary file
	// Judgments and topics stay in memory while traces stream past them: a
	// tighter collector target keeps peak memory nearer what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	var mapped traceimport.Manifests
	src, err := req.Open(e.files(), c.Traces, e.stdin, e.traceFormats(c.mappingFlags, c.stageFlags, &mapped))
	defer src.Close()
	if err != nil {
		return err
	}
	bar := progress.Files(e.stderr, "evaluating traces", systems.Files(src.Traces), e.terminal, time.Now)
	res, out, err := c.evaluate(e, src.Input, src.Scan, opt)
	bar.Done()
	defer out.Abort()
	if err != nil {
		return err
	}
	inputs := report.StagesInputs(src, &mapped)
	if c.Format == "json" {
		if err := report.Digests(inputs, src.All()); err != nil {
			return err
		}
	}
	if part != nil {
		part.Positions = res.Positions
	}
	rep := &report.Stages{Tool: "ragstat", Version: Version, Policy: p, Inputs: inputs, Result: res, PerQuery: c.PerQuery, Shard: part}
	if err := report.RenderStages(e.stdout, c.Format, rep); err != nil {
		return internal(err)
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return c.gate(res)
}

// evaluate evaluates the traces, writing each trace's record to
// --per-query-out when given (committed by the caller once all went well).
func (c *stagesCmd) evaluate(e *env, in stages.Input, traces stages.Traces, opt stages.Options) (res *stages.Result, out *outfile.Set, err error) {
	ins := append([]outfile.Input{{Flag: "--judgments", Path: c.Judgments}, {Flag: "--topics", Path: c.Topics},
		{Flag: "--corpus", Path: c.Corpus}}, outfile.Inputs("traces", c.Traces...)...)
	out = outfile.New(outfile.Options{Force: c.Force, Stdout: e.stdout}, ins...)
	if c.PerQueryOut == "" {
		res, err = stages.Evaluate(in, traces, opt)
		return res, out, err
	}
	if err := out.Claim("--per-query-out", c.PerQueryOut); err != nil {
		return nil, out, err
	}
	opt.Summary = c.Format == "table" && !c.PerQuery && opt.Shard == nil
	err = out.Write(c.PerQueryOut, func(w io.Writer) (err error) {
		res, err = parquetio.EvaluateStages(w, c.PerQueryOut, in, traces, opt)
		return err
	})
	return res, out, err
}

// gate fails the command when an out-of-scope item was seen and asked to.
func (c *stagesCmd) gate(res *stages.Result) error {
	if !c.FailOnViolation {
		return nil
	}
	lines := res.Violations()
	if len(lines) == 0 {
		return nil
	}
	return &exitError{code: exitGate, err: fmt.Errorf("permission violations:\n%s", strings.Join(lines, "\n"))}
}

type tokensCmd struct {
	Tokenizer string   `default:"o200k_base" placeholder:"NAME" help:"cl100k_base, o200k_base, p50k_base, r50k_base or hf:tokenizer.json (default ${default})."`
	Files     []string `arg:"" placeholder:"FILE" help:"Text files to count (- for stdin)."`
}

func (c *tokensCmd) Run(e *env) error {
	tok, err := tokenize.New(c.Tokenizer)
	if err != nil {
		return err
	}
	return tokenize.CountFiles(e.stdout, tok, c.Files, e.stdin)
}
