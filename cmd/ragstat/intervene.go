package main

import (
	"fmt"
	"os"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/intervenecmd"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/intervene"
)

type interveneCmd struct {
	mappingFlags
	endpointFlags   `set:"rate_limit=2"`
	Judgments       []string `short:"j" required:"" sep:"none" placeholder:"FILE" help:"Judgments (qrels): TREC, JSONL or JSON object; spans are kept in the verified context. Repeatable: the files are merged, and a pair graded differently in two of them is an error."`
	JudgmentsFormat string   `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the judgments format (${enum})."`
	gradesFlag
	MinGrade          int      `default:"1" help:"Relevance threshold: a query without required facts gets every valid judged item at this grade or above as its verified set."`
	Topics            string   `required:"" placeholder:"FILE" help:"Topics (JSONL): facts, reference answers, scopes, as_of; or nuggetizer's nugget file (TREC RAG 2024), its nuggets the required facts."`
	NuggetAssignments string   `placeholder:"FILE" help:"Nuggetizer's assignments (JSONL, TREC RAG 2024): the passages its retrieval lines assign support the nuggets of --topics."`
	Corpus            string   `placeholder:"FILE" help:"Corpus (JSONL): the full text and metadata of the verified items."`
	Tokenizer         string   `default:"o200k_base" placeholder:"NAME" help:"The generator's tokenizer, to count both prompts against the trace's budget (default ${default})."`
	Queries           []string `placeholder:"ID" help:"Queries to intervene on (comma-separated or repeated). Default: every failing query (--failing)."`
	Failing           bool     `help:"Intervene on every answerable query whose recorded answer misses a reference or a required fact (the default without --queries)."`
	PassF1            float64  `name:"pass-f1" placeholder:"X" help:"An answer matches a reference at token F1 >= X (default: exact match only)."`
	Model             string   `placeholder:"NAME" help:"Generator model (default: the trace's config.model)."`
	Temperature       *float64 `placeholder:"T" help:"Sampling temperature (default: the trace's config.temperature, else the endpoint's)."`
	Seed              *int64   `placeholder:"N" help:"Sampling seed (default: the trace's config.seed)."`
	MaxTokens         *int     `placeholder:"N" help:"Answer length limit (default: the trace's config.max_tokens)."`
	Force             bool     `help:"Overwrite --write-batch if it exists."`
	Format            string   `short:"f" default:"table" enum:"table,json,markdown" help:"Output format (${enum})."`
	Traces            []string `arg:"" placeholder:"TRACES" help:"Trace files: ragstat traces, or OTLP, LangSmith or Langfuse files mapped as by import."`
}

func (c *interveneCmd) Run(e *env) error {
	var mapped settings.Manifests
	job := intervenecmd.Job{Judgments: settings.MergedName(c.Judgments), JudgmentsFormat: mergedFormat(c.Judgments, c.JudgmentsFormat), Grades: c.Grades, Topics: c.Topics,
		Corpus: c.Corpus, NuggetAssignments: c.NuggetAssignments, Traces: c.Traces, Tokenizer: c.Tokenizer, MinGrade: c.MinGrade, PassF1: c.PassF1, Queries: c.Queries,
		Failing: c.Failing, Settings: intervene.Settings{Model: c.Model, Temperature: c.Temperature, Seed: c.Seed, MaxTokens: c.MaxTokens},
		Citation: c.CitationPattern, Abstain: c.AbstainPattern, KeyEnv: c.APIKeyEnv, NoCache: c.NoCache, WriteBatch: c.WriteBatch,
		ReadBatch: c.ReadBatch, Force: c.Force, Endpoint: c.endpoint()}
	release := ownSignals(os.Interrupt) // it cancels the requests and reports what was done
	defer release()
	out, err := job.Run(intervenecmd.World{Files: e.judgmentFiles(c.Judgments, c.JudgmentsFormat), Stdin: e.stdin, Stdout: e.stdout, Getenv: os.Getenv,
		Formats: e.traceFormats(c.mappingFlags, stageFlags{}, &mapped), Interrupt: []os.Signal{os.Interrupt}})
	if err != nil {
		return err
	}
	if out.Batch != nil {
		fmt.Fprintf(e.stderr, "ragstat: %d requests written to %s; send it as a Batch API job, then rerun with --read-batch OUTPUT\n", out.Batch.Len(), c.WriteBatch)
		return nil
	}
	rep := &report.Intervention{Tool: "ragstat", Version: Version, Inputs: report.StagesInputs(out.Sources.Files, out.Sources.Roles, out.Sources.Read(), out.Sources.Traces, mapped.Of), Result: out.Result, Notes: out.Notes}
	if err := report.RenderIntervention(e.stdout, c.Format, rep); err != nil {
		return internal(err)
	}
	if n := out.Result.Failed(); n > 0 {
		return internal(fmt.Errorf("%d of the %d requests to the generator failed (their cases are not run; the report gives each error)", n, 2*len(out.Result.Cases)))
	}
	return nil
}
