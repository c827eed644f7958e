package main

import (
	"os"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/fill"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
)

type judgeFillCmd struct {
	mappingFlags
	endpointFlags `set:"rate_limit=10"`
	Judgments     []string `short:"j" sep:"none" placeholder:"FILE" help:"Judgments already made: the pairs they grade or label are not asked (a negative grade counts as unjudged). Repeatable: merged as eval merges them."`
	Topics        string   `required:"" placeholder:"FILE" help:"Topics (JSONL or TSV): each query's text."`
	Corpus        string   `required:"" placeholder:"FILE" help:"Corpus (JSONL): each passage's text; with the topics' scopes and dates, items that are not acceptable evidence are not graded."`
	Depth         int      `default:"10" help:"Grade the top K of every run and trace stage (the packed context included) (default ${default})."`
	Prompt        string   `default:"umbrela" placeholder:"umbrela|FILE" help:"UMBRELA's published prompt (grades 0..3), or a template file with {query} and {passage} whose answer is the grade alone or ##final score: N (default ${default})."`
	Grades        string   `default:"0..3" placeholder:"MIN..MAX" help:"The grades an answer may give; UMBRELA's are 0..3 (default ${default})."`
	Model         string   `required:"" placeholder:"NAME" help:"The judge model, recorded with every label."`
	Temperature   float64  `default:"0" placeholder:"T" help:"Sampling temperature (default ${default}, as UMBRELA)."`
	ModelSeed     *int64   `placeholder:"N" help:"Sampling seed sent with each request (default: none sent)."`
	MaxTokens     int      `default:"100" placeholder:"N" help:"Answer length limit (default ${default}, as UMBRELA)."`
	Concurrency   int      `default:"8" placeholder:"N" help:"Requests in flight at once (default ${default})."`
	Out           string   `short:"o" placeholder:"FILE" help:"Where to write the judgments read and one line per LLM label, with its provenance (JSONL)."`
	Audit         int      `placeholder:"N" help:"Draw N of the queries with LLM labels uniformly at random for people to grade; their labels are marked."`
	Seed          uint64   `default:"1" help:"Seed of the audit's draw (printed) (default ${default})."`
	AuditQueue    string   `placeholder:"FILE" help:"Where to write the audit's queue for judge serve: the drawn queries' labelled pairs, without the LLM's grades."`
	Force         bool     `help:"Replace --out, --audit-queue or --write-batch if it exists."`
	RunFormat     string   `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the run format (${enum}); traces are recognised by their \"stages\"."`
	NumericIDs    bool     `name:"numeric-ids" help:"Accept JSON ids written as integers in runs and judgments (7 reads as \"7\"); other numbers stay errors."`
	Inputs        []string `arg:"" placeholder:"RUN_OR_TRACE" help:"Runs (PATH or NAME=PATH) and trace files (ragstat's, OTLP, LangSmith, Langfuse)."`
}

func (c *judgeFillCmd) Run(e *env) error {
	traces := func() ([]systems.TraceReader, error) { return e.traceFormats(c.mappingFlags, stageFlags{}, nil)(nil) }
	release := ownSignals(os.Interrupt) // it stops the requests and says what to do
	defer release()
	err := fill.Request{Judgments: c.Judgments, NumericIDs: c.NumericIDs, Topics: c.Topics, Corpus: c.Corpus, Systems: c.Inputs,
		Traces: traces, RunFormat: c.RunFormat, Depth: c.Depth, Prompt: c.Prompt, Grades: c.Grades, Model: c.Model,
		Temperature: &c.Temperature, Seed: c.ModelSeed, MaxTokens: c.MaxTokens, Workers: c.Concurrency,
		Endpoint: c.endpoint(),
		KeyEnv:   c.APIKeyEnv, NoCache: c.NoCache, WriteBatch: c.WriteBatch, ReadBatch: c.ReadBatch, Out: c.Out, Force: c.Force,
		Audit: c.Audit, AuditSeed: c.Seed, AuditQueue: c.AuditQueue}.Run(fill.World{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
		Terminal: e.terminal, Getenv: os.Getenv, Now: time.Now, Interrupt: []os.Signal{os.Interrupt}})
	if _, ok := err.(*fill.Failed); ok {
		return internal(err)
	}
	return err
}
