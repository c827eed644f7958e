package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/assess"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/baseline"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
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
	Judgments  oneFile  `short:"j" placeholder:"FILE" help:"Existing judgments: pairs judged there are left out (a negative grade counts as unjudged)."`
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
	traces := func() ([]systems.TraceReader, error) { return e.traceFormats(c.mappingFlags, stageFlags{}, nil)(nil) }
	return pool.Request{Systems: c.Inputs, Traces: traces, Stage: c.Stage, RunFormat: c.RunFormat, NumericIDs: c.NumericIDs, Judgments: string(c.Judgments),
		Topics: c.Topics, Corpus: c.Corpus, Depth: c.Depth, Seed: c.Seed, Out: c.Out, Force: c.Force}.Run(e.stdin, e.stdout, e.stderr)
}

type baselineCmd struct {
	strictFlag
	Corpus string `required:"" placeholder:"FILE" help:"Corpus (JSONL) with the passages' text."`
	Topics string `required:"" placeholder:"FILE" help:"Topics (JSONL): each topic's text is its query."`
	K      int    `short:"k" default:"100" help:"Passages per query."`
	Tag    string `default:"bm25" help:"The run tag (last TREC column)."`
	Out    string `short:"o" required:"" placeholder:"FILE" help:"Where to write the TREC run; - for standard output."`
	Force  bool   `help:"Replace --out if it exists."`
}

func (c *baselineCmd) Run(e *env) error {
	return baseline.Request{Corpus: c.Corpus, Topics: c.Topics, K: c.K, Tag: c.Tag, Out: c.Out, Force: c.Force}.Run(e.stdin, e.stdout, e.stderr, e.notes)
}

// interrupted is a context that ends on an interrupt or a termination
// signal, which the command owns until the context is cancelled (see
// removeOnSignal): a server's way to stop.
func interrupted() (context.Context, context.CancelFunc) {
	release := ownSignals(os.Interrupt, syscall.SIGTERM)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return ctx, func() { stop(); release() }
}

type judgeCmd struct {
	Serve     judgeServeCmd     `cmd:"" default:"withargs" help:"Serve the assessment app (the default)."`
	Fill      judgeFillCmd      `cmd:"" help:"Grade the holes of the judgments with an LLM judge (UMBRELA's prompt), labels with their provenance; draw the queries people audit."`
	Export    judgeExportCmd    `cmd:"" help:"Write the grades as judgments that eval and stages read."`
	Agreement judgeAgreementCmd `cmd:"" help:"Cohen's weighted kappa and the confusion matrix of every two assessors."`
}

type judgeServeCmd struct {
	strictFlag
	DB     string `name:"db" required:"" placeholder:"FILE" help:"The judgments database (SQLite); created when missing."`
	Queue  string `required:"" placeholder:"FILE" help:"The queue from ragstat pool (JSONL)."`
	Corpus string `required:"" placeholder:"FILE" help:"Corpus (JSONL) with the passages' text."`
	Topics string `required:"" placeholder:"FILE" help:"Topics (JSONL): the query text and its facts."`
	Addr   string `placeholder:"HOST:PORT" help:"Where to listen (default: 127.0.0.1 on a free port)."`
	Token  string `env:"RAGSTAT_JUDGE_TOKEN" placeholder:"TOKEN" help:"Access token every request must carry; required off loopback (one is generated when missing)."`
	Grades string `placeholder:"MIN..MAX" help:"The grade scale of a new database (default 0..3), stored in it; a database resumed keeps its own, and a different --grades is refused. Keys 0-9 grade on scales within 0..9; others use the buttons."`
}

func (c *judgeServeCmd) Run(e *env) error {
	ctx, stop := interrupted()
	defer stop()
	return assess.ServeRequest{DB: c.DB, Queue: c.Queue, Corpus: c.Corpus, Topics: c.Topics, Addr: c.Addr, Token: c.Token, Grades: c.Grades}.
		Run(ctx, e.stdin, e.stdout, log.New(e.stderr, "ragstat judge: ", log.LstdFlags))
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
	opt := assess.ExportOptions{Format: c.Format, Assessor: c.Assessor, Merge: c.Merge}
	return assess.ExportRequest{DB: c.DB, ExportOptions: opt, Out: c.Out, Force: c.Force}.Run(context.Background(), e.stdout, e.notes)
}

type judgeAgreementCmd struct {
	DB      string `name:"db" required:"" placeholder:"FILE" help:"The judgments database."`
	Weights string `default:"quadratic" enum:"quadratic,linear" help:"Disagreement weights over the database's scale of K grades: quadratic (i-j)²/(K-1)² or linear |i-j|/(K-1)."`
}

func (c *judgeAgreementCmd) Run(e *env) error {
	return assess.AgreementFile(context.Background(), c.DB, e.stdout, assess.Weights(c.Weights))
}
