// Package evalcmd is the body of ragstat eval: it opens the judgments and
// the runs (text or Parquet), evaluates every run with package eval, and
// writes the per-query rows when asked.
package evalcmd

import (
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/parquetio"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/runs"
)

// A Request is an evaluation of runs as `ragstat eval` gives it: the
// evaluation's settings, the runs, the shard, the rows of the result and
// the file of per-query rows.
type Request struct {
	settings.Eval
	// Runs are the runs as systems.Open takes them: PATH or NAME=PATH,
	// "-" for stdin; text formats or Parquet.
	Runs      []string
	RunFormat string // "", auto, trec, jsonl or json
	// StageCutoffs are refused: a run's lists have no stages (they are
	// what the command line's -k NAME=K gives).
	StageCutoffs map[string]int
	Shard        string // "I/N": only shard I of N's queries (settings.Select); "" every query
	Digests      bool   // record every file's SHA-256 (a JSON result's manifest)
	// PerQuery and Summary choose the rows (report.Eval.ChoosePerQuery);
	// they exclude each other.
	PerQuery, Summary bool
	// PerQueryOut, when set, is the file every run's per-query rows are
	// written to (WritePerQuery), replaced only with Force.
	PerQueryOut string
	Force       bool
}

// errStaged refuses StageCutoffs.
var errStaged = errors.New("-k NAME=K sets a stage's cutoff and applies to ragstat stages; eval takes -k K")

// Sources are the judgments and runs a Request opened, to be
// evaluated. Close closes them.
type Sources struct {
	*settings.Evaluation
	Runs []*systems.Input
	req  Request
	sel  *settings.Selection
}

// Open checks the request, then opens the judgments (with the document map
// and the subtopics, settings.Eval.Open) and the runs. On error, the files
// it opened are closed when the sources are: call Close in any case.
func (r Request) Open(files settings.Files, stdin io.Reader) (*Sources, error) {
	s := &Sources{req: r}
	if err := report.CheckRows(r.PerQuery, r.Summary); err != nil {
		return s, err
	}
	if len(r.StageCutoffs) > 0 {
		return s, errStaged
	}
	var err error
	if s.sel, err = settings.Select(r.Shard); err != nil {
		return s, err
	}
	files.Digest = r.Digests // computed as the inputs are read
	s.sel.Read(&files)
	if s.Evaluation, err = r.Eval.Open(files); err != nil {
		return s, err
	}
	if part := s.sel.Part(); part != nil {
		part.FoldedJudgments = s.FoldedJudgments
	}
	s.Runs, err = systems.Open(r.Runs, stdin, systems.Options{Accept: []systems.Kind{systems.Run}})
	return s, err
}

// Evaluate scores every run into rep (evaluateRuns), marks a shard's
// partial result, chooses the rows and writes the per-query file when
// asked: through a temporary file renamed into place, never over an input
// nor an existing file without Force; messages name the files as ragstat
// eval's flags. stdout is where PerQueryOut "-" goes.
func (s *Sources) Evaluate(rep *report.Eval, stdout io.Writer) error {
	rep.Shard = s.sel.Part()
	runFormat, _ := input.ParseFormat(s.req.RunFormat)
	if err := evaluateRuns(rep, s.Evaluation, s.Runs, runs.Options{Format: runFormat, NumericIDs: s.req.NumericIDs}, s.req.Digests); err != nil {
		return err
	}
	rep.ChoosePerQuery(s.req.PerQuery, s.req.Summary)
	if s.req.PerQueryOut == "" {
		return nil
	}
	ins := append([]outfile.Input{{Flag: "--judgments", Path: s.req.Judgments}, {Flag: "--doc-map", Path: s.req.DocMap},
		{Flag: "--subtopics", Path: s.req.Subtopics}}, outfile.Inputs("run", systems.Paths(s.req.Runs)...)...)
	out, err := outfile.Start(outfile.Options{Force: s.req.Force, Stdout: stdout}, ins, outfile.Input{Flag: "--per-query-out", Path: s.req.PerQueryOut})
	if err != nil {
		return err
	}
	defer out.Abort()
	return out.Finish(s.req.PerQueryOut, func(w io.Writer) error { return writePerQuery(w, s.req.PerQueryOut, rep) })
}

// Close closes the judgments and the runs opened.
func (s *Sources) Close() {
	systems.Close(s.Runs)
	if s.Evaluation != nil {
		s.File.Close()
	}
}

// evaluateRuns scores every run of sys with ev (parquetio.Evaluate: Parquet or text) into rep: the
// results, the record of the judgments file and of each run, and the
// notes on the evaluation. With digests, each record has its file's
// SHA-256, computed as the run is read.
func evaluateRuns(rep *report.Eval, ev *settings.Evaluation, sys []*systems.Input, opt runs.Options, digests bool) error {
	rep.Policy = ev.Policy()
	rep.Inputs = append(rep.Inputs, report.Input{Role: "judgments", Path: ev.File.Name, Format: string(ev.Judgments().Format)})
	files := append([]*input.File{ev.File}, systems.Files(sys)...)
	for _, in := range sys {
		if digests {
			in.File.KeepSHA256()
		}
	}
	var ppi []*eval.PPIResult
	for _, in := range sys {
		res, err := parquetio.Evaluate(ev.Evaluator, in.System(), in.File, opt)
		if err != nil {
			return err
		}
		if ev.Correction != nil {
			p, err := correct(ev.Correction, res, in, opt)
			if err != nil {
				return err
			}
			ppi = append(ppi, p)
		}
		rep.Results = append(rep.Results, res)
		rep.Inputs = append(rep.Inputs, report.Input{Role: "run", Path: in.File.Name, Format: res.Format})
	}
	if digests {
		if err := report.Digests(rep.Inputs, files); err != nil {
			return err
		}
	}
	rep.Notes = append(report.Notes(ev.FoldedJudgments, ev.Policy(), ev.Preset, rep.Results), ev.LabelNotes...)
	rep.LLM = llmLabels(ev, ppi)
	return nil
}

// writePerQuery writes the per-query rows of every run of r for a file
// named path: Parquet (parquetio.WriteEval) when it ends in .parquet, JSON Lines
// otherwise.
func writePerQuery(w io.Writer, path string, r *report.Eval) error {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return parquetio.WriteEval(w, r.Results)
	}
	return report.Render(w, "jsonl", r)
}
