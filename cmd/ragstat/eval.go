package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/alecthomas/kong"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/evalcmd"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/parquetio"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/progress"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/input"
)

// policyFlags are the flags that change numbers; eval, compare and stages
// share them. Each sets the help of -k (cutoff_help), whose meaning differs.
type policyFlags struct {
	Judgments       []string         `short:"j" required:"" sep:"none" placeholder:"FILE" help:"Judgments (qrels): TREC, JSONL or JSON object; gzip and - for stdin accepted. Repeatable: the files are merged, and a pair graded differently in two of them is an error."`
	JudgmentsFormat string           `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the judgments format (${enum})."`
	RunFormat       string           `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the run format (${enum})."`
	Metric          []string         `short:"m" sep:"none" placeholder:"NAME" help:"Metric to compute (repeatable): nDCG@10, R@100, RR@10, AP, bpref, ERR@10, ...; trec_eval names (ndcg_cut.10, map, P.5,10) and ranx names (ndcg_burges@10) compute their tool's measure. Default: R@k RR@k nDCG@k."`
	Like            string           `placeholder:"TOOL" help:"Set every policy to a tool's behaviour: trec_eval, pytrec_eval, ir_measures or ranx; explicit flags still override it."`
	K               settings.Cutoffs `short:"k" placeholder:"K" help:"${cutoff_help}"`
	MinGrade        int              `default:"1" help:"Relevance threshold: the hit test and the recall denominator use it."`
	gradesFlag
	Gain          string `placeholder:"exp|linear" help:"nDCG gain of ragstat's names: exp = 2^g-1 (default), linear = g."`
	Unjudged      string `placeholder:"POLICY" help:"A returned item with no judgment: error (default), nonrelevant, skip (judged-only: also drops negative grades), bounds."`
	Unanswerable  string `placeholder:"POLICY" help:"A query with no relevant judgment: error (default), exclude (left out of the means), zero (scored, kept in the means)."`
	Queries       string `placeholder:"SET" help:"Which queries: exact (default: both sets equal), judged, run, both (only those on both sides)."`
	JudgedDivisor string `placeholder:"k|list" help:"Judged@k divides by k (default) or by min(k, list length) (ir_measures)."`
	Unit          string `default:"item" enum:"item,doc" help:"Evaluation unit: item, or doc (items folded into their document)."`
	Subtopics     string `placeholder:"FILE" help:"Subtopic judgments for alpha-nDCG and ERR-IA: TREC diversity qrels (topic subtopic item grade)."`
	DocMap        string `placeholder:"FILE" help:"Item to document map for --unit doc: TSV (item<TAB>doc) or JSONL {\"item\":..,\"doc\":..}."`
	DocIDPattern  string `placeholder:"REGEX" help:"For --unit doc: the first group of REGEX is the document id."`
	Order         string `default:"score" enum:"score,rank" help:"Rank by score (ties: item id descending) or by the TREC rank column."`
	NumericIDs    bool   `name:"numeric-ids" help:"Accept JSON ids written as integers (7 reads as \"7\"; pandas' to_json writes them); other numbers stay errors."`
	Labels        string `placeholder:"human|llm|ppi" help:"Judgments with LLM labels (judge fill): human (people's grades alone), llm (LLM labels fill the holes) or ppi (LLM-filled per query, each mean corrected by the human audit with its interval). Required when they hold any."`
}

// rowFlags choose the format and the rows of an evaluation's result.
type rowFlags struct {
	Format string `short:"f" default:"table" enum:"table,json,jsonl,csv,tsv,markdown,trec" help:"Output format (${enum})."`
	rowChoice
}

// rowChoice chooses the rows of an evaluation's result; eval and merge
// take it.
type rowChoice struct {
	PerQuery bool `help:"Print a row per query (default: when there are at most 50 queries)."`
	Summary  bool `help:"Print the means only."`
}

type evalCmd struct {
	policyFlags `set:"cutoff_help=Cutoff of the default metrics R@K RR@K nDCG@K (default 10)."`
	rowFlags
	strictFlag
	Confidence  float64  `default:"0.95" help:"Confidence level of the intervals of --labels ppi (default ${default})."`
	PerQueryOut string   `placeholder:"FILE" help:"Also write a row per query to FILE: Parquet when it ends in .parquet, JSON Lines otherwise."`
	Force       bool     `help:"Overwrite --per-query-out's FILE if it exists."`
	Shard       string   `placeholder:"I/N" help:"Evaluate only shard I of N (0 <= I < N): the queries whose id's FNV-1a 64-bit hash is I modulo N; merge the --format json parts with ragstat merge."`
	CSVComments bool     `name:"csv-comments" help:"CSV and TSV as before: the policy as # lines above the header, a mean as a query named MEAN (default: a scope column and a policy column)."`
	Runs        []string `arg:"" placeholder:"RUN" help:"Runs to evaluate: PATH or NAME=PATH; - for stdin."`
}

// settings are the flags as the evaluation's settings.
func (f *policyFlags) settings() settings.Eval {
	return settings.Eval{Judgments: settings.MergedName(f.Judgments), JudgmentsFormat: mergedFormat(f.Judgments, f.JudgmentsFormat), Metrics: f.Metric, Cutoff: f.K.Default,
		Like: f.Like, MinGrade: f.MinGrade, Grades: f.Grades, Gain: f.Gain, Unjudged: f.Unjudged,
		Unanswerable: f.Unanswerable, Queries: f.Queries, JudgedDivisor: f.JudgedDivisor, Unit: f.Unit, Order: f.Order,
		Subtopics: f.Subtopics, DocMap: f.DocMap, DocIDPattern: f.DocIDPattern, NumericIDs: f.NumericIDs, Labels: f.Labels}
}

// files opens what the flags name, standard input for "-", and reads
// judgments in Parquet or text (parquetio.ReadAnyJudgments).
func (e *env) files() settings.Files {
	return settings.Files{Open: func(path string) (*input.File, error) { return input.Open(path, e.stdin) }, ReadJudgments: parquetio.ReadAnyJudgments}
}

// files opens what the flags name, the judgments of several -j files
// merged (settings.MergingJudgments).
func (f *policyFlags) files(e *env) settings.Files {
	return e.judgmentFiles(f.Judgments, f.JudgmentsFormat)
}

// judgmentFiles opens what the flags name, the judgments of several paths
// merged, each read in format.
func (e *env) judgmentFiles(paths []string, format string) settings.Files {
	f, _ := input.ParseFormat(format)
	return settings.MergingJudgments(e.files(), paths, f)
}

// mergedFormat is the judgments format the library reads: the one given
// for a single file, auto for several merged (their merge is JSON Lines;
// each file is read in the format given).
func mergedFormat(paths []string, format string) string {
	if len(paths) > 1 {
		return "auto"
	}
	return format
}

// announcePreset tells stderr what --like set, for the commands whose
// output has no notes of its own (eval prints it with its results).
func (f *policyFlags) announcePreset(e *env, preset []string) {
	e.notes(report.PresetNotes(f.Like, preset)...)
}

func (c *evalCmd) Run(e *env) error {
	ev := c.settings()
	ev.Confidence = c.Confidence
	req := evalcmd.Request{Eval: ev, Runs: c.Runs, RunFormat: c.RunFormat, StageCutoffs: c.K.ByStage,
		Shard: c.Shard, Digests: c.Format == "json", PerQuery: c.PerQuery, Summary: c.Summary, PerQueryOut: c.PerQueryOut, Force: c.Force}
	// Judgments stay in memory while runs stream past them: a tighter
	// collector target keeps peak memory near what is live. While they are
	// read nearly all the heap is live, so the collector runs rarely then.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	src, err := req.Open(c.files(e), e.stdin)
	debug.SetGCPercent(50)
	defer src.Close()
	if err != nil {
		return err
	}
	bar := progress.Files(e.stderr, "evaluating", systems.Files(src.Runs), e.terminal, time.Now)
	defer bar.Done()
	rep := &report.Eval{Tool: "ragstat", Version: Version, CSVComments: c.CSVComments}
	if err := src.Evaluate(rep, e.stdout); err != nil {
		return err
	}
	if err := report.Render(bar.ClearBefore(e.stdout), c.Format, rep); err != nil {
		return rendered(err)
	}
	e.notes(rep.Beside(c.Format)...)
	return nil
}

// rendered is the exit status of a result that could not be rendered: bad
// input where the format cannot hold the data, else an internal failure.
func rendered(err error) error {
	if errors.Is(err, report.ErrQueryAll) {
		return err
	}
	return internal(err)
}

// oneFile is a file flag of a command that reads one: given twice, it is
// an error instead of the last one kept.
type oneFile string

func (f *oneFile) Decode(ctx *kong.DecodeContext) error {
	var path string
	if err := ctx.Scan.PopValueInto("file", &path); err != nil {
		return err
	}
	if *f != "" {
		return fmt.Errorf("given twice (%s, %s): this command reads one file", *f, path)
	}
	*f = oneFile(path)
	return nil
}
