// Package stagescmd is the body of ragstat stages: it reads the judgments,
// topics, corpus and trace files, evaluates the traces with package
// stages, writes each trace's record and the evaluations written back
// onto the spans when asked, and hands the report to render.
package stagescmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/evalemit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/parquetio"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/progress"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/internal/scratch"
	"github.com/ragstat/ragstat/stages"
)

// A Run is an evaluation of stages from files, as `ragstat stages`
// makes it: the request, the trace files, and what becomes of the result.
type Run struct {
	settings.Stages
	// Traces are the trace files, "-" for standard input.
	Traces []string
	// Shard, with Stages.Keep, makes the result one shard's part for
	// ragstat merge (settings.Selection's Part and Keep); nil: every query.
	Shard *eval.Shard
	// Format is the report's, "table", "json" or "html": json and html
	// record every file's SHA-256.
	Format string
	// PerQuery puts the per-query rows and every lost item in the report.
	PerQuery bool
	// PerQueryOut, when set, is where each trace's record is written as it
	// is evaluated (evaluateStages), with the judgments and topics waiting
	// in a temporary file (Stages.Spill): atomically, never over an
	// input, nor over an existing file unless Force. With the table, no
	// PerQuery and no Shard, with or without PerQueryOut, the judgments and
	// topics are spilled and the result holds sums only
	// (stages.Options.Summary): memory stays bounded.
	PerQueryOut string
	Force       bool
	// FailOnViolation has Run return the permission violations
	// (gateLines).
	FailOnViolation bool
	// Version is the tool's version, recorded in the report.
	Version string
	// Emit, when set, writes the evaluations back onto the traces'
	// spans, in its format (evalemit): to EmitOut ("-": standard output),
	// as PerQueryOut is written, and to EmitTo's OTLP/HTTP endpoint once
	// the report is out and the files are in place; one of them at least.
	Emit    evalemit.Format
	EmitOut string
	EmitTo  *evalemit.Endpoint
	// EmitResource adds resource attributes to the OTLP forms
	// (evalemit.Options.Resource).
	EmitResource map[string]string
}

// World is the outside world of a Run.
type World struct {
	Files settings.Files // opens the judgments, topics and corpus
	Stdin io.Reader      // what "-" reads
	// Stdout is what a PerQueryOut of "-" writes.
	Stdout io.Writer
	// Stderr shows the evaluation's progress when Terminal, timed by Now
	// (time.Now when nil).
	Stderr   io.Writer
	Terminal bool
	Now      func() time.Time
	// Formats are the trace readers for the corpus read
	// (settings.Stages.Open), keeping in Mapped, when not nil, the
	// manifest of every trace file they map from another format.
	Formats func(*corpus.Corpus) ([]systems.TraceReader, error)
	Mapped  *settings.Manifests
	// Emitted, when not nil, is told what Run.Emit wrote.
	Emitted *evalemit.Counts
	// Preset, when not nil, is told what the policy's preset set
	// (settings.Eval.Policy), before anything is read.
	Preset func(preset []string)
}

// Run checks the request, reads the files, evaluates the traces and hands
// the report to render; PerQueryOut and EmitOut are put in place only once
// render succeeded, and the evaluations are sent to EmitTo after that. It
// returns the permission violations when FailOnViolation asks for them. Errors about a setting are diag.OptionErrors naming it
// (see settings.Stages).
func (r Run) Run(w World, render func(*report.Stages) error) (violations []string, err error) {
	if (r.Emit == "") != (r.EmitOut == "" && r.EmitTo == nil) {
		return nil, &diag.OptionError{Option: "emit", Msg: "needs EmitOut or EmitTo, and they need Emit: a format and where to write it"}
	}
	if r.EmitTo != nil && r.Emit != evalemit.OTLP && r.Emit != evalemit.OpenInference {
		return nil, &diag.OptionError{Option: "emit", Value: string(r.Emit), Msg: "is not an OTLP form: an endpoint takes otlp or openinference; write Langfuse scores to a file ({emit_out}) and post each line to Langfuse's /api/public/scores"}
	}
	if len(r.EmitResource) > 0 && r.Emit != evalemit.OTLP && r.Emit != evalemit.OpenInference {
		return nil, &diag.OptionError{Option: "emit_resource", Msg: "applies to the OTLP forms of {emit}: otlp and openinference"}
	}
	p, preset, err := r.Policy()
	if err != nil {
		return nil, err
	}
	if w.Preset != nil {
		w.Preset(preset)
	}
	opt, err := r.Options(p)
	if err != nil {
		return nil, err
	}
	r.Spill = r.Spill || r.PerQueryOut != "" || r.summary(opt)
	src, err := r.Open(p, w.Files, r.Traces, w.Stdin, w.Formats)
	defer src.Close()
	if err != nil {
		return nil, err
	}
	now := w.Now
	if now == nil {
		now = time.Now
	}
	bar := progress.Files(w.Stderr, "evaluating traces", systems.Files(src.Traces), w.Terminal, now)
	var em *evalemit.Emitter
	if r.Emit != "" {
		if em, err = evalemit.New(evalemit.Options{Format: r.Emit, Version: r.Version, Time: now(), Resource: r.EmitResource}); err != nil {
			return nil, err
		}
		defer em.Close()
		opt.PerQuery = em.Add
	}
	res, out, err := r.evaluate(w.Stdout, src, opt)
	bar.Done()
	defer out.Abort()
	if err != nil {
		return nil, err
	}
	inputs := report.StagesInputs(src.Files, src.Roles, src.Read(), src.Traces, w.Mapped.Of)
	if r.Format == "json" || r.Format == "html" || em != nil {
		if err := report.Digests(inputs, src.All()); err != nil {
			return nil, err
		}
	}
	if r.Shard != nil {
		r.Shard.Positions = res.Positions
	}
	rep := &report.Stages{Tool: "ragstat", Version: r.Version, Policy: p, Inputs: inputs, Result: res, PerQuery: r.PerQuery, PerQueryOut: r.PerQueryOut, Shard: r.Shard}
	if err := r.labels(rep, src, opt); err != nil {
		return nil, err
	}
	var emitted *os.File
	var c evalemit.Counts
	if em != nil {
		if emitted, c, err = r.emit(em, out, rep); err != nil {
			return nil, err
		}
		defer scratch.Remove(emitted)
	}
	if err := render(rep); err != nil {
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	if r.EmitTo != nil {
		if _, err := emitted.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		if c.Sent, err = evalemit.Send(context.Background(), *r.EmitTo, r.Emit, emitted); err != nil {
			return nil, &outfile.WriteError{Path: r.EmitTo.URL, Err: err} // a fault of the output
		}
	}
	if w.Emitted != nil {
		*w.Emitted = c
	}
	if !r.FailOnViolation {
		return nil, nil
	}
	return gateLines(res), nil
}

// gateLines says, one line a system, where out-of-scope items appeared:
// what the gate on permission violations checks. None: no system showed
// one.
func gateLines(r *stages.Result) []string {
	var lines []string
	for _, s := range r.Systems {
		if n := len(s.Validity.OutOfScope); n > 0 {
			lines = append(lines, fmt.Sprintf("system %s: %d out-of-scope appearance(s), %d in the context", s.Name, n, s.Validity.InContext))
		}
	}
	return lines
}

// summary says whether the report needs sums only (stages.Options.Summary,
// with the judgments and topics spilled: memory stays flat in the number of
// traces): the table without the per-query listings, of every query.
func (r Run) summary(opt stages.Options) bool {
	return r.Format == "table" && !r.PerQuery && opt.Shard == nil && opt.Policy.Labels != eval.LabelsPPI
}

// evaluate evaluates the traces, writing each trace's record to
// PerQueryOut when set, through out: Run commits it once all went well.
func (r Run) evaluate(stdout io.Writer, src *settings.Sources, opt stages.Options) (res *stages.Result, out *outfile.Set, err error) {
	ins := append([]outfile.Input{{Flag: "--judgments", Path: r.Judgments}, {Flag: "--topics", Path: r.Topics},
		{Flag: "--corpus", Path: r.Corpus}, {Flag: "--nugget-assignments", Path: r.NuggetAssignments}}, outfile.Inputs("traces", r.Traces...)...)
	out = outfile.New(outfile.Options{Force: r.Force, Stdout: stdout}, ins...)
	opt.Summary = r.summary(opt)
	if r.EmitOut != "" {
		if err := out.Claim("EmitOut", r.EmitOut); err != nil {
			return nil, out, err
		}
	}
	if r.PerQueryOut == "" {
		res, err = stages.Evaluate(src.Input, src.Scan, opt)
		return res, out, err
	}
	if err := out.Claim("--per-query-out", r.PerQueryOut); err != nil {
		return nil, out, err
	}
	err = out.Write(r.PerQueryOut, func(w io.Writer) (err error) {
		res, err = evaluateStages(w, r.PerQueryOut, src.Input, src.Scan, opt)
		return err
	})
	return res, out, err
}

// emit writes the annotations gathered, naming the report's manifest
// digest, to a temporary file, and from it to EmitOut when set.
func (r Run) emit(em *evalemit.Emitter, out *outfile.Set, rep *report.Stages) (f *os.File, c evalemit.Counts, err error) {
	digest, err := rep.ManifestSHA256()
	if err != nil {
		return nil, c, err
	}
	if f, err = os.CreateTemp("", "ragstat-emit-*.jsonl"); err != nil {
		return nil, c, err
	}
	defer func() {
		if err != nil {
			scratch.Remove(f)
		}
	}()
	if c, err = em.Finish(f, digest); err != nil || r.EmitOut == "" {
		return f, c, err
	}
	if _, err = f.Seek(0, io.SeekStart); err != nil {
		return f, c, err
	}
	return f, c, out.Write(r.EmitOut, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// evaluateStages is stages.Evaluate writing each trace's record to w as it
// is evaluated (after handing it to opt.PerQuery, when set): Parquet (parquetio.StagesWriter) when path ends in .parquet, JSON
// Lines (report.StagesRecords) otherwise.
func evaluateStages(w io.Writer, path string, in stages.Input, traces stages.Traces, opt stages.Options) (*stages.Result, error) {
	if !strings.EqualFold(filepath.Ext(path), ".parquet") {
		opt.PerQuery = also(opt.PerQuery, report.StagesRecords(w))
		return stages.Evaluate(in, traces, opt)
	}
	names := make([]string, len(opt.Metrics))
	for i, m := range opt.Metrics {
		names[i] = m.Name()
	}
	pw, err := parquetio.NewStagesWriter(w, names)
	if err != nil {
		return nil, err
	}
	opt.PerQuery = also(opt.PerQuery, pw.Write)
	res, err := stages.Evaluate(in, traces, opt)
	if err != nil {
		return nil, err
	}
	return res, pw.Close()
}

// also calls first, when not nil, then then.
func also(first, then func(*stages.QueryRecord) error) func(*stages.QueryRecord) error {
	if first == nil {
		return then
	}
	return func(r *stages.QueryRecord) error {
		if err := first(r); err != nil {
			return err
		}
		return then(r)
	}
}
