package fill

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/parquetio"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/progress"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/topics"
)

// A Request is `ragstat judge fill` in words: the files, the judge, where
// its answers come from, the outputs and the audit. Errors about a setting
// are diag.OptionErrors naming it as an Option ("audit_queue").
type Request struct {
	// Judgments are the judgments already made (none: every pair is a
	// hole), merged as judgments.Merge merges them, read on any grade.
	Judgments  []string
	NumericIDs bool // JSON ids written as integers, in runs and judgments
	// Topics give each query's text, Corpus each item's; both are needed.
	Topics, Corpus string
	// Systems are the runs and trace files (PATH or NAME=PATH); Traces
	// gives the readers of foreign trace formats (nil: ragstat's only).
	Systems   []string
	Traces    func() ([]systems.TraceReader, error)
	RunFormat string
	// Depth is k: the top k of every list (every stage of a trace) is
	// graded where no judgment grades it.
	Depth int
	// Prompt is "umbrela" (or "") or a template file; Grades the scale
	// its answers give (MIN..MAX; UMBRELA's is 0..3).
	Prompt, Grades string
	// Model, Temperature, Seed and MaxTokens are the requests' settings.
	Model       string
	Temperature *float64
	Seed        *int64
	MaxTokens   int
	Workers     int // requests in flight at once
	// Endpoint is the API (its Role is set to "judge"), its key read from
	// the environment variable KeyEnv; NoCache keeps no answer even with
	// Endpoint.Cache. WriteBatch writes the requests as a Batch API input
	// file and sends nothing; ReadBatch reads the answers from a Batch
	// API output file. Give one of the three.
	Endpoint              llm.Endpoint
	KeyEnv                string
	NoCache               bool
	WriteBatch, ReadBatch string
	// Out is the judgments written: the people's grades read, every LLM
	// label (those read and the new ones), one a line. Force replaces an
	// existing output.
	Out   string
	Force bool
	// Audit, when above 0, draws that many of the queries with LLM labels
	// (AuditSeed) for people to grade, marks their labels, and writes the
	// pairs they have not graded yet to AuditQueue, a queue judge serve
	// reads.
	Audit      int
	AuditSeed  uint64
	AuditQueue string
}

// World is the outside world a Request meets.
type World struct {
	Stdin          io.Reader // what "-" reads
	Stdout, Stderr io.Writer // "-" outputs go to Stdout; the summary to Stderr
	Terminal       bool      // Stderr is a terminal: a progress bar is drawn
	Getenv         func(string) string
	Now            func() time.Time
	// Interrupt are the signals that stop the requests (the answers
	// received stay in the cache).
	Interrupt []os.Signal
}

// check refuses settings that do not go together.
func (r Request) check() (judgments.Scale, error) {
	bad := func(msg string) error { return &diag.OptionError{Msg: msg} }
	scale, err := judgments.ParseScale(cmp.Or(r.Grades, "0..3"))
	switch {
	case err != nil:
		return scale, &diag.OptionError{Option: "grades", Err: err}
	case (r.Prompt == "" || r.Prompt == UMBRELA) && scale != judgments.DefaultScale:
		return scale, &diag.OptionError{Option: "grades", Value: scale.String(), Msg: "differs from UMBRELA's 0..3: give a {prompt} FILE that asks for this scale"}
	case r.Depth < 1:
		return scale, &diag.OptionError{Option: "depth", Value: fmt.Sprint(r.Depth), Msg: "must be at least 1"}
	case r.Topics == "" || r.Corpus == "":
		return scale, bad("give {topics} and {corpus}: the judge reads the query's text and the passage's")
	case strings.TrimSpace(r.Model) == "":
		return scale, bad("give {model}: the judge model, recorded with every label")
	case r.WriteBatch != "" && r.ReadBatch != "":
		return scale, bad("{write_batch} and {read_batch}: give one")
	case r.WriteBatch == "" && r.Out == "":
		return scale, bad("give {out} FILE: where the judgments and the LLM labels go")
	case r.WriteBatch != "" && (r.Out != "" || r.Audit > 0):
		return scale, bad("{write_batch} sends nothing and labels nothing: leave out {out} and {audit}, and give them with {read_batch}")
	case (r.Audit > 0) != (r.AuditQueue != ""):
		return scale, bad("{audit} N and {audit_queue} FILE go together: how many queries people audit, and the queue they judge")
	case r.Audit < 0:
		return scale, &diag.OptionError{Option: "audit", Value: fmt.Sprint(r.Audit), Msg: "must be positive"}
	case r.MaxTokens < 1:
		return scale, &diag.OptionError{Option: "max_tokens", Value: fmt.Sprint(r.MaxTokens), Msg: "must be at least 1"}
	}
	return scale, nil
}

// Run grades the holes and writes what r asks for. Outputs are claimed
// before anything is read (never an input, an existing file only with
// Force) and written atomically. Requests that fail leave their pairs
// holes: the outputs are written, then the count is returned as an error.
func (r Request) Run(w World) error {
	scale, err := r.check()
	if err != nil {
		return err
	}
	ins := append(outfile.Inputs("judgments", r.Judgments...), outfile.Input{Flag: "--topics", Path: r.Topics},
		outfile.Input{Flag: "--corpus", Path: r.Corpus}, outfile.Input{Flag: "--read-batch", Path: r.ReadBatch})
	if r.Prompt != UMBRELA {
		ins = append(ins, outfile.Input{Flag: "--prompt", Path: r.Prompt})
	}
	ins = append(ins, outfile.Inputs("input", systems.Paths(r.Systems)...)...)
	out, err := outfile.Start(outfile.Options{Force: r.Force, Stdout: w.Stdout}, ins, outfile.Input{Flag: "--out", Path: r.Out},
		outfile.Input{Flag: "--audit-queue", Path: r.AuditQueue}, outfile.Input{Flag: "--write-batch", Path: r.WriteBatch})
	if err != nil {
		return err
	}
	defer out.Abort()
	open := func(path string) (*input.File, error) { return input.Open(path, w.Stdin) }
	tmpl, err := LoadTemplate(r.Prompt, open)
	if err != nil {
		return err
	}
	set, err := r.readJudgments(open)
	if err != nil {
		return err
	}
	fs := files.Batch{Stdin: w.Stdin}
	tps, cps := files.ReadIn(&fs, r.Topics, topics.Read), files.ReadIn(&fs, r.Corpus, corpus.Read)
	if fs.Err != nil {
		return fs.Err
	}
	queue, res, err := r.pool(w.Stdin, set, tps, cps)
	if err != nil {
		return err
	}
	pairs, err := texts(queue, tps, cps, r.Topics, r.Corpus)
	if err != nil {
		return err
	}
	judge := Judge{Template: tmpl, Scale: scale, Model: r.Model, Temperature: r.Temperature, Seed: r.Seed, MaxTokens: r.MaxTokens,
		Workers: r.Workers, Now: w.Now}
	var batch *llm.Batch
	var notes []string
	switch {
	case r.WriteBatch != "":
		batch = &llm.Batch{}
		judge.Generator, judge.Workers = batch, 1 // one at a time: the file's lines in the pairs' order
	case r.ReadBatch != "":
		if judge.Generator, err = input.Read(r.ReadBatch, w.Stdin, llm.ReadBatch); err != nil {
			return err
		}
		notes = append(notes, "answers: read from the batch output "+r.ReadBatch)
	default:
		ep := r.Endpoint
		ep.Role = "judge"
		if judge.Generator, notes, err = ep.Connect(r.KeyEnv, r.NoCache, w.Getenv); err != nil {
			return err
		}
		judge.Endpoint = llm.Redact(ep.URL, w.Getenv(r.KeyEnv))
	}
	report := &Report{Pool: res, Pairs: len(pairs), Template: tmpl, Model: r.Model, Temperature: r.Temperature, Seed: r.Seed, Notes: notes}
	ctx := context.Background()
	if len(w.Interrupt) > 0 {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, w.Interrupt...)
		defer stop()
	}
	bar := progress.Start(w.Stderr, "judging", int64(len(pairs)), w.Terminal, time.Now)
	judge.Done = func() { bar.Add(1) }
	report.Outcome, err = judge.Label(ctx, pairs)
	bar.Done()
	if err != nil {
		return fmt.Errorf("stopped: %w (the answers received are in the cache, if one was given: a rerun sends the rest)", err)
	}
	if batch != nil {
		if err := out.Finish(r.WriteBatch, func(w io.Writer) error { _, err := batch.WriteTo(w); return err }); err != nil {
			return err
		}
		report.BatchFile = r.WriteBatch
		return report.Write(w.Stderr)
	}
	labels := allLabels(set, report.Outcome.Labels)
	if r.Audit > 0 {
		if report.Audit, err = r.audit(set, labels, pairs); err != nil {
			return err
		}
		if err := out.Write(r.AuditQueue, func(w io.Writer) error { return pool.WriteQueue(w, report.Audit.Queue) }); err != nil {
			return err
		}
	}
	all, err := judgments.New(idtext.Show(r.Out), append(people(set), labels...), pool.JudgedScale)
	if err != nil {
		return err
	}
	if err := out.Write(r.Out, func(w io.Writer) error { return writeAll(w, all) }); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	report.Out, report.AuditQueue = r.Out, r.AuditQueue
	if err := report.Write(w.Stderr); err != nil {
		return &outfile.ReportError{Err: err}
	}
	if n := len(report.Outcome.Failed); n > 0 {
		return &Failed{N: n, Of: len(pairs)}
	}
	return nil
}

// Failed is the error of a run whose requests failed for n of the pairs:
// their pairs are holes in the judgments written.
type Failed struct{ N, Of int }

func (f *Failed) Error() string {
	return fmt.Sprintf("%d of the %d requests to the judge failed: their pairs are left holes (a rerun with the cache sends only those)", f.N, f.Of)
}

// readJudgments reads and merges the judgments already made; an empty set
// when none are named.
func (r Request) readJudgments(open func(string) (*input.File, error)) (*judgments.Set, error) {
	opt := judgments.Options{Scale: pool.JudgedScale, NumericIDs: r.NumericIDs}
	if len(r.Judgments) == 0 {
		return judgments.New("no judgments", nil, opt.Scale)
	}
	sets := make([]*judgments.Set, len(r.Judgments))
	for i, p := range r.Judgments {
		f, err := open(p)
		if err != nil {
			return nil, err
		}
		sets[i], err = parquetio.ReadAnyJudgments(f, opt)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return judgments.Merge(sets, opt.Scale)
}

// pool is the queue of holes: the pairs of every list's top Depth that set
// neither grades (a negative grade: pooled, not judged) nor labels, and
// are acceptable evidence for their query.
func (r Request) pool(stdin io.Reader, set *judgments.Set, tps *topics.Set, cps *corpus.Corpus) ([]pool.Entry, *pool.Result, error) {
	format, err := input.ParseFormat(r.RunFormat)
	if err != nil {
		return nil, nil, &diag.OptionError{Option: "run_format", Err: err}
	}
	var readers []systems.TraceReader
	if r.Traces != nil {
		if readers, err = r.Traces(); err != nil {
			return nil, nil, err
		}
	}
	ins, err := systems.Open(r.Systems, stdin, systems.Options{Accept: []systems.Kind{systems.Run, systems.Traces}, Traces: readers})
	defer systems.Close(ins)
	if err != nil {
		return nil, nil, err
	}
	rankings, err := pool.Read(ins, "", runs.Options{Format: format, NumericIDs: r.NumericIDs})
	if err != nil {
		return nil, nil, err
	}
	graded, labelled := pool.JudgedIn(set), map[[2]string]bool{}
	for _, id := range set.LLMQueries() {
		for _, l := range set.LLMJudgments(id) {
			labelled[[2]string{l.Query, l.Item}] = true
		}
	}
	res, err := pool.Build(rankings, pool.Options{Depth: r.Depth, Invalid: pool.InvalidEvidence(cps, tps),
		Judged: func(q, item string) bool { return graded(q, item) || labelled[[2]string{q, item}] }})
	if err != nil {
		return nil, nil, err
	}
	return res.Queue, res, nil
}

// texts gives every pair of the queue its query's text and its item's: a
// query the topics lack, or an item the corpus lacks, is an error.
func texts(queue []pool.Entry, tps *topics.Set, cps *corpus.Corpus, topicsFile, corpusFile string) ([]Pair, error) {
	var errs diag.List
	pairs := make([]Pair, 0, len(queue))
	missing := map[string]bool{}
	for _, e := range queue {
		t, c := tps.Get(e.Query), cps.Get(e.Item)
		switch {
		case t == nil && !missing[e.Query]:
			missing[e.Query] = true
			errs.Add(&diag.Error{File: topicsFile, Query: e.Query, Msg: "no topic: the judge needs the query's text"})
		case t != nil && c == nil:
			errs.Add(&diag.Error{File: corpusFile, Query: e.Query, Item: e.Item, Msg: "not in the corpus: the judge needs the passage's text",
				Hint: "give the corpus the systems retrieve from"})
		case t != nil:
			pairs = append(pairs, Pair{Query: e.Query, Item: e.Item, Text: t.Text, Passage: c.Text, Systems: e.Systems})
		}
		if errs.Full() {
			break
		}
	}
	slices.SortFunc(pairs, func(a, b Pair) int { return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Item, b.Item)) })
	return pairs, errs.Err()
}

// people is every person's grade of set, query by query.
func people(set *judgments.Set) []judgments.Judgment {
	var js []judgments.Judgment
	for _, id := range set.IDs() {
		js = append(js, set.Judgments(id)...)
	}
	return js
}

// allLabels is set's LLM labels and the new ones, sorted by query and
// item, each with a provenance of its own.
func allLabels(set *judgments.Set, added []judgments.Judgment) []judgments.Judgment {
	js := slices.Clone(added)
	for _, id := range set.LLMQueries() {
		js = append(js, set.LLMJudgments(id)...)
	}
	for i := range js {
		p := *js[i].LLM
		js[i].LLM = &p
	}
	slices.SortFunc(js, func(a, b judgments.Judgment) int {
		return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Item, b.Item))
	})
	return js
}

// writeAll writes people's grades, then the LLM labels, query by query.
func writeAll(w io.Writer, set *judgments.Set) error {
	for _, id := range set.IDs() {
		if err := judgments.WriteJSONL(w, set.Judgments(id)); err != nil {
			return err
		}
	}
	for _, id := range set.LLMQueries() {
		if err := judgments.WriteJSONL(w, set.LLMJudgments(id)); err != nil {
			return err
		}
	}
	return nil
}
