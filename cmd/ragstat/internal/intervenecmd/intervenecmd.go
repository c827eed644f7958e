// Package intervenecmd is the body of ragstat intervene: it reads the
// judgments, topics, corpus and traces, connects the source of the answers
// (an endpoint, a Batch API output file, or none when the requests are
// written for a batch job) and runs package intervene.
package intervenecmd

import (
	"cmp"
	"context"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// A Job is an intervention as the command line gives it: the files, the
// queries and the settings of intervene.Options in words, and the source of the
// answers: Endpoint (Endpoint.Connect, with the API key in the environment
// variable KeyEnv, cached unless NoCache) or, sending nothing, the Batch
// API output file ReadBatch. With WriteBatch nothing is sent either: the
// requests are written for a batch job.
type Job struct {
	// Judgments (in JudgmentsFormat, input.ParseFormat's names, on the
	// scale Grades, MIN..MAX), Topics (required), Corpus and
	// NuggetAssignments (whose passages support a nugget file's facts) name
	// the files read as stages reads them (settings.Stages.Open), and
	// Traces the trace files; "-" is standard input.
	Judgments, JudgmentsFormat, Grades string
	Topics, Corpus, NuggetAssignments  string
	Traces                             []string
	// Tokenizer names the generator's tokenizer (settings.Tokenizer).
	Tokenizer string
	// MinGrade, PassF1, Queries, Failing and Settings are as in
	// intervene.Options.
	MinGrade int
	PassF1   float64
	Queries  []string
	Failing  bool
	Settings intervene.Settings
	// Citation and Abstain are the answer's patterns, as in a
	// traceimport.Mapping ("" citation: traceimport.DefaultCitation).
	Citation, Abstain string
	Endpoint          llm.Endpoint
	KeyEnv            string
	NoCache           bool
	// WriteBatch, when set, is where both arms' requests are written as a
	// Batch API input file (llm.Batch), atomically, never over an input, nor
	// over an existing file unless Force; ReadBatch, when set, is the
	// Batch API output file holding the answers (llm.ReadBatch). Give one at
	// most.
	WriteBatch, ReadBatch string
	Force                 bool
}

// World is the outside world a Job reads and writes.
type World struct {
	Files settings.Files // opens the judgments, topics and corpus
	Stdin io.Reader      // what "-" reads
	// Stdout is what a WriteBatch of "-" writes.
	Stdout io.Writer
	// Getenv reads the environment; os.Getenv when nil.
	Getenv func(key string) string
	// Formats are the trace readers for the corpus read (settings.Stages.Open).
	Formats func(*corpus.Corpus) ([]systems.TraceReader, error)
	// Interrupt are the signals that cancel the requests (os.Interrupt,
	// say), caught only once the inputs are read: one received while
	// reading has its usual effect.
	Interrupt []os.Signal
}

// An Outcome is what a Job did.
type Outcome struct {
	// Result is the intervention: with WriteBatch, every case NotRun.
	*intervene.Result
	// Notes describe where the answers came from, for a report.
	Notes []string
	// Sources are the files read, closed once the Job is done: their
	// names and formats are what a report records of its inputs.
	Sources *settings.Sources
	// Batch holds the requests written to WriteBatch; nil without it.
	Batch *llm.Batch
}

// Run reads the inputs, gathers the traces, builds the intervene.Options
// and runs the intervention (intervene.Run), then writes the batch file when asked.
// Errors about a setting are diag.OptionErrors naming it as an Option
// ("write_batch").
func (j Job) Run(w World) (*Outcome, error) {
	if j.WriteBatch != "" && j.ReadBatch != "" {
		return nil, &diag.OptionError{Msg: "{write_batch} and {read_batch}: give one"}
	}
	// The threshold is checked as eval checks it: a positive grade on the
	// scale.
	// The verified evidence is what people graded: LLM labels are left out.
	ev := settings.Eval{Judgments: j.Judgments, JudgmentsFormat: j.JudgmentsFormat, MinGrade: j.MinGrade, Grades: j.Grades,
		Labels: string(eval.LabelsHuman)}
	p, _, err := ev.Policy()
	if err != nil {
		return nil, err
	}
	req := settings.Stages{Eval: ev, Topics: j.Topics, Corpus: j.Corpus, NuggetAssignments: j.NuggetAssignments}
	src, err := req.Open(p, w.Files, j.Traces, w.Stdin, w.Formats)
	defer src.Close()
	if err != nil {
		return nil, err
	}
	traces, err := gather(src.Scan)
	if err != nil {
		return nil, err
	}
	opt := intervene.Options{Names: flagname.Flag, Judgments: src.Judgments, Topics: src.Topics, Corpus: src.Corpus, MinGrade: p.MinGrade, Scale: p.Scale, PassF1: j.PassF1,
		Queries: j.Queries, Failing: j.Failing, Settings: j.Settings}
	if opt.Tokenizer, err = settings.Tokenizer(j.Tokenizer); err != nil {
		return nil, err
	}
	if opt.Citation, opt.Abstain, err = (traceimport.Mapping{Citation: j.Citation, Abstain: j.Abstain}).Patterns(); err != nil {
		return nil, err
	}
	out := &Outcome{Sources: src}
	var set *outfile.Set
	switch {
	case j.WriteBatch != "":
		ins := append([]outfile.Input{{Flag: "--judgments", Path: j.Judgments}, {Flag: "--topics", Path: j.Topics},
			{Flag: "--corpus", Path: j.Corpus}, {Flag: "--nugget-assignments", Path: j.NuggetAssignments}}, outfile.Inputs("trace", j.Traces...)...)
		if set, err = outfile.Start(outfile.Options{Force: j.Force, Stdout: w.Stdout}, ins, outfile.Input{Flag: "--write-batch", Path: j.WriteBatch}); err != nil {
			return nil, err
		}
		defer set.Abort()
		out.Batch = &llm.Batch{}
		opt.Generator = out.Batch
	case j.ReadBatch != "":
		answers, err := input.Read(j.ReadBatch, w.Stdin, llm.ReadBatch)
		if err != nil {
			return nil, err
		}
		opt.Generator, out.Notes = answers, []string{"answers: read from the batch output " + j.ReadBatch}
	default:
		getenv := w.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if opt.Generator, out.Notes, err = j.Endpoint.Connect(j.KeyEnv, j.NoCache, getenv); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	if len(w.Interrupt) > 0 {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, w.Interrupt...)
		defer stop()
	}
	if out.Result, err = intervene.Run(ctx, traces, opt); err != nil {
		return nil, err
	}
	out.Notes = slices.Concat(src.LabelNotes, out.Notes)
	if out.Batch != nil {
		return out, set.Finish(j.WriteBatch, func(w io.Writer) error { _, err := out.Batch.WriteTo(w); return err })
	}
	if cache, ok := opt.Generator.(*llm.Cache); ok {
		out.Notes = append(out.Notes, cache.Note())
	}
	return out, nil
}

// gather collects the traces a scan yields, possibly from several
// goroutines at once, in a stable order: by file, line, system and query.
func gather(scan func(fn func(*trace.Trace) error) error) ([]*trace.Trace, error) {
	var mu sync.Mutex
	var traces []*trace.Trace
	err := scan(func(t *trace.Trace) error {
		mu.Lock()
		defer mu.Unlock()
		traces = append(traces, t)
		return nil
	})
	slices.SortStableFunc(traces, func(a, b *trace.Trace) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			strings.Compare(a.System, b.System), strings.Compare(a.Query, b.Query))
	})
	return traces, err
}
