package main

import (
	"errors"
	"fmt"
	"io"

	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/internal/progress"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/parquetio"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/shard"
	"github.com/ragstat/ragstat/systems"
)

// policyFlags are the flags that change numbers; eval, compare and stages
// share them. Each sets the help of -k (cutoff_help), whose meaning differs.
type policyFlags struct {
	Judgments       string   `short:"j" required:"" placeholder:"FILE" help:"Judgments (qrels): TREC, JSONL or JSON object; gzip and - for stdin accepted."`
	JudgmentsFormat string   `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the judgments format (${enum})."`
	RunFormat       string   `default:"auto" enum:"auto,trec,jsonl,json" help:"Force the run format (${enum})."`
	Metric          []string `short:"m" placeholder:"NAME" help:"Metric to compute (repeatable): nDCG@10, R@100, RR@10, AP, bpref, ERR@10, ...; trec_eval names (ndcg_cut.10, map, P.5,10) and ranx names (ndcg_burges@10) compute their tool's measure. Default: R@k RR@k nDCG@k."`
	Like            string   `placeholder:"TOOL" help:"Set every policy to a tool's behaviour: trec_eval, pytrec_eval, ir_measures or ranx; explicit flags still override it."`
	K               cutoffs  `short:"k" placeholder:"K" help:"${cutoff_help}"`
	MinGrade        int      `default:"1" help:"Relevance threshold: the hit test and the recall denominator use it."`
	Grades          string   `default:"0..3" placeholder:"MIN..MAX" help:"Allowed grades (default ${default})."`
	Gain            string   `placeholder:"exp|linear" help:"nDCG gain of ragstat's names: exp = 2^g-1 (default), linear = g."`
	Unjudged        string   `placeholder:"POLICY" help:"A returned item with no judgment: error (default), nonrelevant, skip (judged-only: also drops negative grades), bounds."`
	Unanswerable    string   `placeholder:"POLICY" help:"A query with no relevant judgment: error (default), exclude (left out of the means), zero (scored, kept in the means)."`
	Queries         string   `placeholder:"SET" help:"Which queries: exact (default: both sets equal), judged, run, both (only those on both sides)."`
	JudgedDivisor   string   `placeholder:"k|list" help:"Judged@k divides by k (default) or by min(k, list length) (ir_measures)."`
	Unit            string   `default:"item" enum:"item,doc" help:"Evaluation unit: item, or doc (items folded into their document)."`
	Subtopics       string   `placeholder:"FILE" help:"Subtopic judgments for alpha-nDCG and ERR-IA: TREC diversity qrels (topic subtopic item grade)."`
	DocMap          string   `placeholder:"FILE" help:"Item to document map for --unit doc: TSV (item<TAB>doc) or JSONL {\"item\":..,\"doc\":..}."`
	DocIDPattern    string   `placeholder:"REGEX" help:"For --unit doc: the first group of REGEX is the document id."`
	Order           string   `default:"score" enum:"score,rank" help:"Rank by score (ties: item id descending) or by the TREC rank column."`
	NumericIDs      bool     `name:"numeric-ids" help:"Accept JSON ids written as integers (7 reads as \"7\"; pandas' to_json writes them); other numbers stay errors."`

	preset []string // what --like set, for the notes
}

type evalCmd struct {
	policyFlags `set:"cutoff_help=Cutoff of the default metrics R@K RR@K nDCG@K (default 10)."`
	Format      string   `short:"f" default:"table" enum:"table,json,jsonl,csv,tsv,markdown,trec" help:"Output format (${enum})."`
	PerQuery    bool     `help:"Print a row per query (default: when there are at most 50 queries)."`
	Summary     bool     `help:"Print the means only."`
	PerQueryOut string   `placeholder:"FILE" help:"Also write a row per query to FILE: Parquet when it ends in .parquet, JSON Lines otherwise."`
	Force       bool     `help:"Overwrite --per-query-out's FILE if it exists."`
	Shard       string   `placeholder:"I/N" help:"Evaluate only shard I of N (0 <= I < N): the queries whose id's FNV-1a 64-bit hash is I modulo N; merge the --format json parts with ragstat merge."`
	CSVComments bool     `name:"csv-comments" help:"CSV and TSV as before: the policy as # lines above the header, a mean as a query named MEAN (default: a scope column and a policy column)."`
	Runs        []string `arg:"" placeholder:"RUN" help:"Runs to evaluate: PATH or NAME=PATH; - for stdin."`
}

// policy turns the flags into an eval.Policy, checked by the library:
// the strict default, then the --like preset (whose settings it lists in
// f.preset), then every flag given explicitly.
func (f *policyFlags) policy() (eval.Policy, error) {
	p := eval.DefaultPolicy()
	var err error
	if f.Like != "" {
		if f.preset, err = p.SetLike(f.Like); err != nil {
			return p, flagged(err)
		}
	}
	if p.Scale, err = judgments.ParseScale(f.Grades); err != nil {
		return p, err
	}
	p.MinGrade, p.Unit, p.Order = f.MinGrade, eval.Unit(f.Unit), runs.Order(f.Order)
	for _, err := range []error{
		set(&p.Gain, f.Gain, metric.ParseGain),
		set(&p.Unjudged, f.Unjudged, eval.ParseUnjudged),
		set(&p.Unanswerable, f.Unanswerable, eval.ParseUnanswerable),
		set(&p.Queries, f.Queries, eval.ParseQuerySet),
		set(&p.JudgedDivisor, f.JudgedDivisor, eval.ParseJudgedDivisor),
	} {
		if err != nil {
			return p, flagged(err)
		}
	}
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

// announcePreset tells stderr what --like set, for the commands whose
// output has no notes of its own (eval prints it with its results).
func (f *policyFlags) announcePreset(e *env) {
	if len(f.preset) > 0 {
		fmt.Fprintf(e.stderr, "ragstat: --like %s set: %s\n", f.Like, strings.Join(f.preset, "; "))
	}
}

// set parses a flag given explicitly into *dst; an empty flag keeps *dst.
func set[T any](dst *T, flag string, parse func(string) (T, error)) error {
	if flag == "" {
		return nil
	}
	v, err := parse(flag)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

func (f *policyFlags) metrics(p eval.Policy) ([]metric.Metric, error) {
	names := f.Metric
	if len(names) == 0 {
		k := f.K.or(10)
		names = []string{fmt.Sprintf("R@%d", k), fmt.Sprintf("RR@%d", k), fmt.Sprintf("nDCG@%d", k)}
	}
	return metric.ParseAllLike(names, p.Like)
}

// evaluator reads the judgments and builds the evaluator the flags describe.
func (f *policyFlags) evaluator(e *env) (*eval.Evaluator, *input.File, error) {
	ev, jf, _, err := f.shardEvaluator(e, nil)
	return ev, jf, err
}

// shardEvaluator is evaluator restricted to the queries of shard sh (nil:
// every query), with the record a partial result carries for the merge.
func (f *policyFlags) shardEvaluator(e *env, sh *shard.Spec) (*eval.Evaluator, *input.File, *manifest.Shard, error) {
	p, err := f.policy()
	if err != nil {
		return nil, nil, nil, err
	}
	ms, err := f.metrics(p)
	if err != nil {
		return nil, nil, nil, err
	}
	jf, err := input.Open(f.Judgments, e.stdin)
	if err != nil {
		return nil, nil, nil, err
	}
	format, _ := input.ParseFormat(f.JudgmentsFormat)
	qrels, err := judgmentsOf(jf, judgments.Options{Format: format, Scale: p.Scale, NumericIDs: f.NumericIDs})
	if err != nil {
		return nil, jf, nil, err
	}
	var part *manifest.Shard
	if sh != nil {
		part = &manifest.Shard{Index: sh.Index, Count: sh.Count, Hash: shard.Hash, Positions: map[string]int{}}
		for i, q := range qrels.IDs() {
			if sh.Has(q) {
				part.Positions[q] = i
			}
		}
		qrels = qrels.Subset(sh.Has)
	}
	docOf, err := f.docOf(p, e)
	if err != nil {
		return nil, jf, nil, err
	}
	ev, err := eval.New(qrels, p, ms, docOf)
	if err != nil {
		return nil, jf, nil, flagged(err)
	}
	if f.Subtopics != "" {
		sf, err := input.Open(f.Subtopics, e.stdin)
		if err != nil {
			return nil, jf, nil, err
		}
		defer sf.Close()
		st, err := judgments.ReadSubtopics(sf, p.Scale)
		if err != nil {
			return nil, jf, nil, err
		}
		if err := ev.UseSubtopics(st); err != nil {
			return nil, jf, nil, err
		}
	}
	if sh != nil {
		ev.Restrict(sh.Has)
		part.FoldedJudgments = ev.FoldedJudgments
	}
	return ev, jf, part, nil
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
	var sh *shard.Spec
	if c.Shard != "" {
		spec, err := shard.Parse(c.Shard)
		if err != nil {
			return err
		}
		sh = &spec
	}
	ev, jf, part, err := c.shardEvaluator(e, sh)
	if jf != nil {
		defer jf.Close()
	}
	if err != nil {
		return err
	}
	rep := &report.Eval{Tool: "ragstat", Version: Version, Policy: ev.Policy(), Shard: part}
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
		if c.Format == "json" { // the manifest's digest, computed as the run is read
			in.File.KeepSHA256()
		}
	}
	bar := e.progress("evaluating", files[1:])
	defer bar.Done()
	for _, in := range sys {
		res, err := evalRun(ev, in.System(), in.File, runs.Options{Format: runFormat, NumericIDs: c.NumericIDs})
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
	rep.Notes = report.Notes(ev.FoldedJudgments, ev.Policy(), c.preset, rep.Results)
	rep.CSVComments = c.CSVComments
	if c.PerQueryOut != "" {
		if err := c.writePerQuery(e, rep); err != nil {
			return err
		}
	}
	if err := report.Render(bar.ClearBefore(e.stdout), c.Format, rep); err != nil {
		return internal(err)
	}
	if !report.PrintsNotes(c.Format) {
		for _, n := range rep.Notes {
			fmt.Fprintln(e.stderr, "ragstat: note:", n)
		}
	}
	if (c.Format == "csv" || c.Format == "tsv") && !c.CSVComments {
		for _, d := range rep.Definitions() {
			fmt.Fprintln(e.stderr, "ragstat:", d)
		}
	}
	for _, w := range report.Warnings(rep.Results) {
		fmt.Fprintln(e.stderr, "ragstat:", w)
	}
	return nil
}

// judgmentsOf reads judgments from Parquet or any text format.
func judgmentsOf(jf *input.File, opt judgments.Options) (*judgments.Set, error) {
	if isParquet, err := parquetio.Is(jf); err == nil && isParquet {
		return parquetio.ReadJudgments(jf, opt.Scale)
	}
	return judgments.Read(jf, opt)
}

// evalRun evaluates one run file, TREC, JSON or Parquet.
func evalRun(ev *eval.Evaluator, name string, rf *input.File, opt runs.Options) (*eval.Result, error) {
	isParquet, err := parquetio.Is(rf)
	if err != nil || !isParquet {
		return ev.Run(name, rf, opt)
	}
	lists, err := parquetio.ReadRun(rf)
	if err != nil {
		return nil, err
	}
	return ev.RunLists(name, rf.Name, parquetio.Format, lists, opt)
}

// writePerQuery writes every run's per-query rows to --per-query-out, as
// Parquet or JSON Lines by its extension: never over an input, nor over an
// existing file without --force.
func (c *evalCmd) writePerQuery(e *env, rep *report.Eval) error {
	ins := []outfile.Input{{Flag: "--judgments", Path: c.Judgments}, {Flag: "--doc-map", Path: c.DocMap}, {Flag: "--subtopics", Path: c.Subtopics}}
	for _, r := range c.Runs {
		_, path := systems.Split(r)
		ins = append(ins, outfile.Input{Flag: "run", Path: path})
	}
	out := outfile.New(outfile.Options{Force: c.Force, Stdout: e.stdout}, ins...)
	defer out.Abort()
	if err := out.Claim("--per-query-out", c.PerQueryOut); err != nil {
		return err
	}
	path := c.PerQueryOut
	if err := out.Write(path, func(w io.Writer) error {
		if strings.EqualFold(filepath.Ext(path), ".parquet") {
			return parquetio.WriteEval(w, rep)
		}
		return report.Render(w, "jsonl", rep)
	}); err != nil {
		return err
	}
	return out.Commit()
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
