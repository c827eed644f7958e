package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"math"
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
	ins := []outfile.Input{{Flag: "--judgments", Path: c.Judgments}}
	for _, arg := range c.Inputs {
		_, path := systems.Split(arg)
		ins = append(ins, outfile.Input{Flag: "input", Path: path})
	}
	out := outfile.New(outfile.Options{Force: c.Force, Stdout: e.stdout}, ins...)
	defer out.Abort()
	if err := out.Claim("--out", c.Out); err != nil {
		return err
	}
	rankings, err := c.read(e)
	if err != nil {
		return err
	}
	opt := pool.Options{Depth: c.Depth, Seed: c.Seed}
	if (c.Topics == "") != (c.Corpus == "") {
		return fmt.Errorf("--topics and --corpus go together: the topics' scopes and dates against the items' metadata")
	}
	if c.Topics != "" {
		cs, ts, err := readCorpusTopics(c.Corpus, c.Topics, e)
		if err != nil {
			return err
		}
		opt.Invalid = pool.InvalidEvidence(cs, ts)
	}
	if c.Judgments != "" {
		if opt.Judged, err = readJudged(c.Judgments, c.NumericIDs, e); err != nil {
			return err
		}
	}
	res, err := pool.Build(rankings, opt)
	if err != nil {
		return err
	}
	report := e.stdout
	if c.Out == outfile.Stdout {
		report = e.stderr
	}
	if err := out.Write(c.Out, func(w io.Writer) error { return pool.WriteQueue(w, res.Queue) }); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return pool.WriteSummary(report, res, c.Depth, c.Out)
}

func (c *poolCmd) read(e *env) ([]pool.Ranking, error) {
	m, err := c.mapping(nil, stageFlags{})
	if err != nil {
		return nil, err
	}
	ins, err := systems.Open(c.Inputs, e.stdin, systems.Options{Accept: []systems.Kind{systems.Run, systems.Traces}, Traces: traceFormats(m, e.stderr, nil)})
	defer systems.Close(ins)
	if err != nil {
		return nil, err
	}
	format, _ := input.ParseFormat(c.RunFormat)
	return pool.Read(ins, c.Stage, runs.Options{Format: format, NumericIDs: c.NumericIDs})
}

func readJudged(path string, numericIDs bool, e *env) (pool.Judged, error) {
	set, err := readJudgments(e, path, fmt.Sprintf("%d..%d", math.MinInt32, math.MaxInt32), numericIDs)
	if err != nil {
		return nil, err
	}
	return pool.JudgedIn(set), nil
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
	out := outfile.New(outfile.Options{Force: c.Force, Stdout: e.stdout},
		outfile.Input{Flag: "--corpus", Path: c.Corpus}, outfile.Input{Flag: "--topics", Path: c.Topics})
	defer out.Abort()
	if err := out.Claim("--out", c.Out); err != nil {
		return err
	}
	cs, ts, err := readCorpusTopics(c.Corpus, c.Topics, e)
	if err != nil {
		return err
	}
	docs, qs, err := baseline.Inputs(cs, ts)
	if err != nil {
		return err
	}
	rs, err := baseline.Search(docs, qs, baseline.Options{K: c.K})
	if err != nil {
		return err
	}
	report := e.stdout
	if c.Out == outfile.Stdout {
		report = e.stderr
	}
	if err := out.Write(c.Out, func(w io.Writer) error { return baseline.WriteRun(w, rs, c.Tag) }); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(report, "BM25 over %d passages (%d without text left out), %d queries, top %d -> %s\n",
		len(docs), len(cs.Items)-len(docs), len(qs), c.K, c.Out)
	if empty := baseline.Empty(rs); len(empty) > 0 {
		fmt.Fprintf(e.stderr, "ragstat: warning: %d queries matched no passage and are absent from the run: %s\n", len(empty), strings.Join(empty, ", "))
	}
	return nil
}

func readCorpusTopics(corpusPath, topicsPath string, e *env) (*corpus.Corpus, *topics.Set, error) {
	cs, err := readFile(e, corpusPath, corpus.Read)
	if err != nil {
		return nil, nil, err
	}
	ts, err := readFile(e, topicsPath, topics.Read)
	return cs, ts, err
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
	inputs := outfile.New(outfile.Options{Force: true}, outfile.Input{Flag: "--queue", Path: c.Queue},
		outfile.Input{Flag: "--corpus", Path: c.Corpus}, outfile.Input{Flag: "--topics", Path: c.Topics})
	if err := inputs.Claim("--db", c.DB); err != nil {
		return err
	}
	task, err := c.task(e)
	if err != nil {
		return err
	}
	opt := assess.OpenOptions{Create: true}
	if c.Grades != "" {
		scale, err := judgments.ParseScale(c.Grades)
		if err != nil {
			return fmt.Errorf("--grades: %w", err)
		}
		opt.Scale = &scale
	}
	db, err := assess.Open(c.DB, opt)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = assess.Run(ctx, db, task, assess.RunOptions{Addr: c.Addr, Token: c.Token, Out: e.stdout, Log: log.New(e.stderr, "ragstat judge: ", log.LstdFlags)})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "ragstat judge: stopped; every acknowledged grade is in", c.DB)
	return nil
}

// task reads and checks the queue against the corpus and topics before the
// database is opened: a bad queue changes nothing stored.
func (c *judgeServeCmd) task(e *env) (*assess.Task, error) {
	qf, err := input.Open(c.Queue, e.stdin)
	if err != nil {
		return nil, err
	}
	defer qf.Close()
	q, err := pool.ReadQueue(qf)
	if err != nil {
		return nil, err
	}
	cs, ts, err := readCorpusTopics(c.Corpus, c.Topics, e)
	if err != nil {
		return nil, err
	}
	return assess.NewTask(qf.Name, q, cs, ts)
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
	out := outfile.New(outfile.Options{Force: c.Force, Stdout: e.stdout}, outfile.Input{Flag: "--db", Path: c.DB})
	defer out.Abort()
	if err := out.Claim("--out", c.Out); err != nil {
		return err
	}
	db, err := assess.Open(c.DB, assess.OpenOptions{})
	if err != nil {
		return err
	}
	defer db.Close()
	opt := assess.ExportOptions{Format: c.Format, Assessor: c.Assessor, Merge: c.Merge}
	var n int
	err = out.Write(c.Out, func(w io.Writer) error {
		n, err = assess.Export(context.Background(), db, w, opt)
		return err
	})
	if err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if scale := db.Scale(); scale != judgments.DefaultScale {
		fmt.Fprintf(e.stderr, "ragstat: exported %d judgments on grades %s: evaluate them with --grades %s\n", n, scale, scale)
	} else {
		fmt.Fprintf(e.stderr, "ragstat: exported %d judgments\n", n)
	}
	return nil
}

type judgeAgreementCmd struct {
	DB      string `name:"db" required:"" placeholder:"FILE" help:"The judgments database."`
	Weights string `default:"quadratic" enum:"quadratic,linear" help:"Disagreement weights over the database's scale of K grades: quadratic (i-j)²/(K-1)² or linear |i-j|/(K-1)."`
}

func (c *judgeAgreementCmd) Run(e *env) error {
	db, err := assess.Open(c.DB, assess.OpenOptions{})
	if err != nil {
		return err
	}
	defer db.Close()
	grades, err := db.Grades(context.Background())
	if err != nil {
		return err
	}
	w := assess.Weights(c.Weights)
	pairs, err := assess.Agreement(grades, db.Scale(), w)
	if err != nil {
		return err
	}
	return assess.WriteAgreement(e.stdout, pairs, db.Scale(), w)
}
