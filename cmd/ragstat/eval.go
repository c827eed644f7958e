package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/progress"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/systems"
)

// policyFlags are the flags that change numbers; eval, compare and stages
// share them. Each sets the help of -k (cutoff_help), whose meaning differs.
type policyFlags struct {
	Judgments       string   `short:"j" required:"" placeholder:"FILE" help:"Judgments (qrels): TREC, JSONL or JSON object; gzip and - for stdin accepted."`
	JudgmentsFormat string   `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the judgments format (${enum})."`
	RunFormat       string   `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the run format (${enum})."`
	Metric          []string `short:"m" placeholder:"NAME" help:"Metric to compute (repeatable): nDCG@10, R@100, RR@10, AP, bpref, ndcg_cut.10, ... Default: R@k RR@k nDCG@k."`
	K               cutoffs  `short:"k" placeholder:"K" help:"${cutoff_help}"`
	MinGrade        int      `default:"1" help:"Relevance threshold: the hit test and the recall denominator use it."`
	Grades          string   `default:"0..3" placeholder:"MIN..MAX" help:"Allowed grades (default ${default})."`
	Gain            string   `default:"exp" enum:"exp,linear" help:"nDCG gain: exp = 2^g-1, linear = g (trec_eval's ndcg_cut)."`
	Unjudged        string   `default:"error" enum:"error,nonrelevant,skip,bounds" help:"A returned item with no judgment: ${enum}."`
	Unanswerable    string   `default:"error" enum:"error,exclude" help:"A query with no relevant judgment: ${enum}."`
	Queries         string   `default:"exact" enum:"exact,judged,run" help:"Which queries: exact (both sets equal), judged, run."`
	Unit            string   `default:"item" enum:"item,doc" help:"Evaluation unit: item, or doc (items folded into their document)."`
	DocMap          string   `placeholder:"FILE" help:"Item to document map for --unit doc: TSV (item<TAB>doc) or JSONL {\"item\":..,\"doc\":..}."`
	DocIDPattern    string   `placeholder:"REGEX" help:"For --unit doc: the first group of REGEX is the document id."`
	Order           string   `default:"score" enum:"score,rank" help:"Rank by score (ties: item id descending) or by the TREC rank column."`
}

type evalCmd struct {
	policyFlags `set:"cutoff_help=Cutoff of the default metrics R@K RR@K nDCG@K (default 10)."`
	Format      string   `short:"f" default:"table" enum:"table,json,jsonl,csv,tsv,markdown,trec" help:"Output format (${enum})."`
	PerQuery    bool     `help:"Print a row per query (default: when there are at most 50 queries)."`
	Summary     bool     `help:"Print the means only."`
	CSVComments bool     `name:"csv-comments" help:"CSV and TSV as before: the policy as # lines above the header, a mean as a query named MEAN (default: a scope column and a policy column)."`
	Runs        []string `arg:"" placeholder:"RUN" help:"Runs to evaluate: PATH or NAME=PATH; - for stdin."`
}

// policy turns the flags into an eval.Policy, checked by the library.
func (f *policyFlags) policy() (eval.Policy, error) {
	scale, err := judgments.ParseScale(f.Grades)
	if err != nil {
		return eval.Policy{}, err
	}
	gain, err := metric.ParseGain(f.Gain)
	if err != nil {
		return eval.Policy{}, err
	}
	p := eval.Policy{MinGrade: f.MinGrade, Scale: scale, Gain: gain, Unjudged: eval.Unjudged(f.Unjudged),
		Unanswerable: eval.Unanswerable(f.Unanswerable), Queries: eval.QuerySet(f.Queries), Unit: eval.Unit(f.Unit),
		Order: runs.Order(f.Order)}
	return p, flagged(p.Validate())
}

// flagged names the flag of a policy choice the library refused.
func flagged(err error) error {
	var pe *eval.PolicyError
	if !errors.As(err, &pe) {
		return err
	}
	flag := "--" + strings.ReplaceAll(pe.Field, "_", "-")
	if pe.Value == "" {
		return fmt.Errorf("%s %s", flag, pe.Msg)
	}
	return fmt.Errorf("%s %s %s", flag, pe.Value, pe.Msg)
}

func (f *policyFlags) metrics() ([]metric.Metric, error) {
	names := f.Metric
	if len(names) == 0 {
		k := f.K.or(10)
		names = []string{fmt.Sprintf("R@%d", k), fmt.Sprintf("RR@%d", k), fmt.Sprintf("nDCG@%d", k)}
	}
	return metric.ParseAll(names)
}

// evaluator reads the judgments and builds the evaluator the flags describe.
func (f *policyFlags) evaluator(e *env) (*eval.Evaluator, *input.File, error) {
	p, err := f.policy()
	if err != nil {
		return nil, nil, err
	}
	ms, err := f.metrics()
	if err != nil {
		return nil, nil, err
	}
	jf, err := input.Open(f.Judgments, e.stdin)
	if err != nil {
		return nil, nil, err
	}
	format, _ := input.ParseFormat(f.JudgmentsFormat)
	qrels, err := judgments.Read(jf, judgments.Options{Format: format, Scale: p.Scale})
	if err != nil {
		return nil, nil, err
	}
	docOf, err := f.docOf(p, e)
	if err != nil {
		return nil, nil, err
	}
	ev, err := eval.New(qrels, p, ms, docOf)
	return ev, jf, flagged(err)
}

func (f *policyFlags) docOf(p eval.Policy, e *env) (func(string) string, error) {
	switch {
	case p.Unit != eval.UnitDoc:
		if f.DocMap != "" || f.DocIDPattern != "" {
			return nil, fmt.Errorf("--doc-map and --doc-id-pattern apply to --unit doc only")
		}
		return nil, nil
	case f.DocMap != "" && f.DocIDPattern != "":
		return nil, fmt.Errorf("give --doc-map or --doc-id-pattern, not both")
	case f.DocIDPattern != "":
		docOf, err := eval.DocPattern(f.DocIDPattern)
		if err != nil {
			return nil, fmt.Errorf("--doc-id-pattern: %w", err)
		}
		return docOf, nil
	case f.DocMap != "":
		mf, err := input.Open(f.DocMap, e.stdin)
		if err != nil {
			return nil, err
		}
		return eval.ReadDocMap(mf)
	}
	return nil, fmt.Errorf("--unit doc needs --doc-map FILE or --doc-id-pattern REGEX")
}

func (c *evalCmd) Run(e *env) error {
	if c.PerQuery && c.Summary {
		return fmt.Errorf("--per-query and --summary exclude each other")
	}
	if len(c.K.ByStage) > 0 {
		return fmt.Errorf("-k NAME=K sets a stage's cutoff and applies to ragstat stages; eval takes -k K")
	}
	// Judgments stay in memory while runs stream past them: a tighter
	// collector target keeps peak memory near what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	ev, jf, err := c.evaluator(e)
	if err != nil {
		return err
	}
	defer jf.Close()
	rep := &report.Eval{Tool: "ragstat", Version: Version, Policy: ev.Policy()}
	rep.Inputs = append(rep.Inputs, report.Input{Role: "judgments", Path: jf.Name, Format: string(ev.Judgments().Format)})
	runFormat, _ := input.ParseFormat(c.RunFormat)
	sys, err := systems.Open(c.Runs, e.stdin, systems.Options{Accept: []systems.Kind{systems.Run}})
	defer systems.Close(sys)
	if err != nil {
		return err
	}
	files := []*input.File{jf}
	for _, in := range sys {
		files = append(files, in.File)
	}
	bar := e.progress("evaluating", files[1:])
	defer bar.Done()
	for _, in := range sys {
		res, err := ev.Run(in.System(), in.File, runs.Options{Format: runFormat})
		if err != nil {
			return err
		}
		rep.Results = append(rep.Results, res)
		rep.Inputs = append(rep.Inputs, report.Input{Role: "run", Path: in.File.Name, Format: res.Format})
	}
	if c.Format == "json" {
		if err := digests(rep.Inputs, files); err != nil {
			return err
		}
	}
	rep.PerQuery = c.PerQuery || !c.Summary && len(rep.Results[0].Rows) <= 50
	rep.Notes = report.Notes(ev, rep.Results)
	rep.CSVComments = c.CSVComments
	if err := report.Render(bar.ClearBefore(e.stdout), c.Format, rep); err != nil {
		return internal(err)
	}
	if !report.PrintsNotes(c.Format) {
		for _, n := range rep.Notes {
			fmt.Fprintln(e.stderr, "ragstat: note:", n)
		}
	}
	for _, w := range report.Warnings(rep.Results) {
		fmt.Fprintln(e.stderr, "ragstat:", w)
	}
	return nil
}

func digests(inputs []report.Input, files []*input.File) error {
	for i, f := range files {
		sum, err := f.SHA256()
		if err != nil {
			return err
		}
		inputs[i].SHA256 = sum
	}
	return nil
}

// progress starts a bar over the bytes of files, drawn only on a terminal.
func (e *env) progress(label string, files []*input.File) *progress.Bar {
	var total int64
	for _, f := range files {
		total += f.Size()
	}
	bar := progress.Start(e.stderr, label, total, e.terminal, time.Now)
	for _, f := range files {
		f.Watch(bar.Add)
	}
	return bar
}
