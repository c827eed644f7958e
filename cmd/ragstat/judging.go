package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/assess"
	"github.com/ragstat/ragstat/internal/baseline"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/internal/pool"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/systems"
	"github.com/ragstat/ragstat/topics"
)

// judgingCommands are the pool, baseline and judge (issue: judging) commands, embedded in the command line.
type judgingCommands struct {
	Pool     poolCmd     `cmd:"" help:"Pool the top k of runs and traces, less what is judged, into a shuffled queue to judge."`
	Baseline baselineCmd `cmd:"" help:"Rank the corpus for the topics with BM25: an independent lexical run for every pool."`
	Judge    judgeCmd    `cmd:"" help:"Judge the queue in a local web app (default); export the grades; assessor agreement."`
}

type poolCmd struct {
	mappingFlags
	Depth      int      `default:"20" help:"Pool depth k: the top k of every list is judged."`
	Judgments  string   `short:"j" placeholder:"FILE" help:"Existing judgments: pairs judged there are left out (a negative grade counts as unjudged)."`
	Stage      string   `placeholder:"NAME" help:"From traces, pool this stage only (default: the top k of every stage)."`
	Topics     string   `placeholder:"FILE" help:"Topics (JSONL): with --corpus, items out of a query's scopes or not in effect at its as_of are not pooled."`
	Corpus     string   `placeholder:"FILE" help:"Corpus (JSONL) with the items' scope and validity dates; needs --topics."`
	Seed       uint64   `default:"1" help:"Seed of the queue's shuffle."`
	RunFormat  string   `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the run format (${enum}); traces are recognised by their \"stages\"."`
	NumericIDs bool     `name:"numeric-ids" help:"Accept JSON ids written as integers in runs and --judgments (7 reads as \"7\"); other numbers stay errors."`
	Out        string   `short:"o" required:"" placeholder:"FILE" help:"Where to write the queue (JSONL); - for standard output."`
	Force      bool     `help:"Replace --out if it exists."`
	Inputs     []string `arg:"" placeholder:"RUN_OR_TRACE" help:"Runs (PATH or NAME=PATH) and trace files (ragstat's, OTLP, LangSmith, Langfuse)."`
}

func (c *poolCmd) Run(e *env) error {
	ins := outfile.Inputs("input", systems.Paths(c.Inputs)...)
	out, err := outfile.Start(outfile.Options{Force: c.Force, Stdout: e.stdout}, append(ins, outfile.Input{Flag: "--judgments", Path: c.Judgments}),
		outfile.Input{Flag: "--out", Path: c.Out})
	if err != nil {
		return err
	}
	defer out.Abort()
	readers, err := e.traceFormats(c.mappingFlags, stageFlags{}, nil)(nil)
	if err != nil {
		return err
	}
	format, _ := input.ParseFormat(c.RunFormat)
	src := pool.Sources{Stage: c.Stage, Runs: runs.Options{Format: format, NumericIDs: c.NumericIDs}}
	src.Systems, err = systems.Open(c.Inputs, e.stdin, systems.Options{Accept: []systems.Kind{systems.Run, systems.Traces}, Traces: readers})
	defer systems.Close(src.Systems)
	if err != nil {
		return err
	}
	fs := input.Batch{Stdin: e.stdin}
	src.Corpus, src.Topics = input.ReadIn(&fs, c.Corpus, corpus.Read), input.ReadIn(&fs, c.Topics, topics.Read)
	src.Judgments = input.ReadIn(&fs, c.Judgments, func(f *input.File) (*judgments.Set, error) {
		return judgments.Read(f, judgments.Options{Scale: pool.JudgedScale, NumericIDs: c.NumericIDs})
	})
	if fs.Err != nil {
		return fs.Err
	}
	res, err := pool.Pool(src, pool.Options{Depth: c.Depth, Seed: c.Seed})
	if err != nil {
		return err
	}
	if err := out.Finish(c.Out, func(w io.Writer) error { return pool.WriteQueue(w, res.Queue) }); err != nil {
		return err
	}
	return res.WriteSummary(outfile.ReportTo(c.Out, e.stdout, e.stderr), c.Out)
}

type baselineCmd struct {
	Corpus string `required:"" placeholder:"FILE" help:"Corpus (JSONL) with the passages' text."`
	Topics string `required:"" placeholder:"FILE" help:"Topics (JSONL): each topic's text is its query."`
	K      int    `short:"k" default:"100" help:"Passages per query."`
	Tag    string `default:"bm25" help:"The run tag (last TREC column)."`
	Out    string `short:"o" required:"" placeholder:"FILE" help:"Where to write the TREC run; - for standard output."`
	Force  bool   `help:"Replace --out if it exists."`
}

func (c *baselineCmd) Run(e *env) error {
	out, err := outfile.Start(outfile.Options{Force: c.Force, Stdout: e.stdout},
		[]outfile.Input{{Flag: "--corpus", Path: c.Corpus}, {Flag: "--topics", Path: c.Topics}}, outfile.Input{Flag: "--out", Path: c.Out})
	if err != nil {
		return err
	}
	defer out.Abort()
	fs := input.Batch{Stdin: e.stdin}
	cs, ts := input.ReadIn(&fs, c.Corpus, corpus.Read), input.ReadIn(&fs, c.Topics, topics.Read)
	if fs.Err != nil {
		return fs.Err
	}
	res, err := baseline.Run(cs, ts, baseline.Options{K: c.K})
	if err != nil {
		return err
	}
	if err := out.Finish(c.Out, func(w io.Writer) error { return baseline.WriteRun(w, res.Rankings, c.Tag) }); err != nil {
		return err
	}
	fmt.Fprintf(outfile.ReportTo(c.Out, e.stdout, e.stderr), "%s -> %s\n", res.Summary(), c.Out)
	if empty := res.Empty(); len(empty) > 0 {
		fmt.Fprintf(e.stderr, "ragstat: warning: %d queries matched no passage and are absent from the run: %s\n", len(empty), strings.Join(empty, ", "))
	}
	return nil
}

// interrupted is a context that ends on an interrupt or a termination
// signal: a server's way to stop.
func interrupted() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

type judgeCmd struct {
	Serve     judgeServeCmd     `cmd:"" default:"withargs" help:"Serve the assessment app (the default)."`
	Export    judgeExportCmd    `cmd:"" help:"Write the grades as judgments that eval and stages read."`
	Agreement judgeAgreementCmd `cmd:"" help:"Cohen's weighted kappa and the confusion matrix of every two assessors."`
}

type judgeServeCmd struct {
	DB     string `name:"db" required:"" placeholder:"FILE" help:"The judgments database (SQLite); created when missing."`
	Queue  string `required:"" placeholder:"FILE" help:"The queue from ragstat pool (JSONL)."`
	Corpus string `required:"" placeholder:"FILE" help:"Corpus (JSONL) with the passages' text."`
	Topics string `required:"" placeholder:"FILE" help:"Topics (JSONL): the query text and its facts."`
	Addr   string `placeholder:"HOST:PORT" help:"Where to listen (default: 127.0.0.1 on a free port)."`
	Token  string `env:"RAGSTAT_JUDGE_TOKEN" placeholder:"TOKEN" help:"Access token every request must carry; required off loopback (one is generated when missing)."`
	Grades string `placeholder:"MIN..MAX" help:"The grade scale of a new database (default 0..3), stored in it; a database resumed keeps its own, and a different --grades is refused. Keys 0-9 grade on scales within 0..9; others use the buttons."`
}

func (c *judgeServeCmd) Run(e *env) error {
	// The database is read and written in place; it may not be one of the
	// files it is built from.
	ins := []outfile.Input{{Flag: "--queue", Path: c.Queue}, {Flag: "--corpus", Path: c.Corpus}, {Flag: "--topics", Path: c.Topics}}
	if _, err := outfile.Start(outfile.Options{Force: true}, ins, outfile.Input{Flag: "--db", Path: c.DB}); err != nil {
		return err
	}
	fs := input.Batch{Stdin: e.stdin}
	q, cs, ts := input.ReadIn(&fs, c.Queue, pool.ReadQueue), input.ReadIn(&fs, c.Corpus, corpus.Read), input.ReadIn(&fs, c.Topics, topics.Read)
	if fs.Err != nil {
		return fs.Err
	}
	task, err := assess.NewTask(c.Queue, q, cs, ts)
	if err != nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	opt := assess.RunOptions{Addr: c.Addr, Token: c.Token, Out: e.stdout, Log: log.New(e.stderr, "ragstat judge: ", log.LstdFlags)}
	if err := assess.ServeFile(ctx, c.DB, c.Grades, task, opt); err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "ragstat judge: stopped; every acknowledged grade is in", c.DB)
	return nil
}

type judgeExportCmd struct {
	DB       string `name:"db" required:"" placeholder:"FILE" help:"The judgments database."`
	Format   string `short:"f" default:"jsonl" enum:"trec,jsonl" help:"trec (query 0 item grade) or jsonl (with spans, facts, and who graded what under meta)."`
	Assessor string `placeholder:"NAME" help:"Export this assessor's grades."`
	Merge    string `enum:",majority,max,min" default:"" help:"Merge all assessors' grades: majority (a tie goes to the lowest tied grade), max or min."`
	Out      string `short:"o" default:"-" placeholder:"FILE" help:"Where to write (default: standard output)."`
	Force    bool   `help:"Replace --out if it exists."`
}

func (c *judgeExportCmd) Run(e *env) error {
	out, err := outfile.Start(outfile.Options{Force: c.Force, Stdout: e.stdout}, outfile.Inputs("--db", c.DB), outfile.Input{Flag: "--out", Path: c.Out})
	if err != nil {
		return err
	}
	defer out.Abort()
	var n int
	var scale judgments.Scale
	err = out.Finish(c.Out, func(w io.Writer) (err error) {
		n, scale, err = assess.ExportFile(context.Background(), c.DB, w, assess.ExportOptions{Format: c.Format, Assessor: c.Assessor, Merge: c.Merge})
		return err
	})
	switch {
	case err != nil:
		return err
	case scale != judgments.DefaultScale:
		fmt.Fprintf(e.stderr, "ragstat: exported %d judgments on grades %s: evaluate them with --grades %s\n", n, scale, scale)
	default:
		fmt.Fprintf(e.stderr, "ragstat: exported %d judgments\n", n)
	}
	return nil
}

type judgeAgreementCmd struct {
	DB      string `name:"db" required:"" placeholder:"FILE" help:"The judgments database."`
	Weights string `default:"quadratic" enum:"quadratic,linear" help:"Disagreement weights over the database's scale of K grades: quadratic (i-j)²/(K-1)² or linear |i-j|/(K-1)."`
}

func (c *judgeAgreementCmd) Run(e *env) error {
	return assess.AgreementFile(context.Background(), c.DB, e.stdout, assess.Weights(c.Weights))
}
