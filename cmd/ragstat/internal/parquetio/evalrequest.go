package parquetio

import (
	"errors"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/shard"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
)

// An EvalRequest is an evaluation of runs as `ragstat eval` gives it: the
// evaluation's settings, the runs, the shard, the rows of the result and
// the file of per-query rows.
type EvalRequest struct {
	eval.Settings
	// Runs are the runs as systems.Open takes them: PATH or NAME=PATH,
	// "-" for stdin; text formats or Parquet.
	Runs      []string
	RunFormat string // "", auto, trec, jsonl or json
	// StageCutoffs are refused: a run's lists have no stages (they are
	// what the command line's -k NAME=K gives).
	StageCutoffs map[string]int
	Shard        string // "I/N": only shard I of N's queries (shard.Select); "" every query
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

// EvalSources are the judgments and runs an EvalRequest opened, to be
// evaluated. Close closes them.
type EvalSources struct {
	*eval.Evaluation
	Runs []*systems.Input
	req  EvalRequest
	sel  *shard.Selection
}

// Open checks the request, then opens the judgments (with the document map
// and the subtopics, eval.Settings.Open) and the runs. On error, the files
// it opened are closed when the sources are: call Close in any case.
func (r EvalRequest) Open(files eval.Files, stdin io.Reader) (*EvalSources, error) {
	s := &EvalSources{req: r}
	if err := report.CheckRows(r.PerQuery, r.Summary); err != nil {
		return s, err
	}
	if len(r.StageCutoffs) > 0 {
		return s, errStaged
	}
	var err error
	if s.sel, err = shard.Select(r.Shard); err != nil {
		return s, err
	}
	files.Digest = r.Digests // computed as the inputs are read
	s.sel.Read(&files)
	if s.Evaluation, err = r.Settings.Open(files); err != nil {
		return s, err
	}
	if part := s.sel.Part(); part != nil {
		part.FoldedJudgments = s.FoldedJudgments
	}
	s.Runs, err = systems.Open(r.Runs, stdin, systems.Options{Accept: []systems.Kind{systems.Run}})
	return s, err
}

// Evaluate scores every run into rep (EvaluateRuns), marks a shard's
// partial result, chooses the rows and writes the per-query file when
// asked: through a temporary file renamed into place, never over an input
// nor an existing file without Force; messages name the files as ragstat
// eval's flags. stdout is where PerQueryOut "-" goes.
func (s *EvalSources) Evaluate(rep *report.Eval, stdout io.Writer) error {
	rep.Shard = s.sel.Part()
	runFormat, _ := input.ParseFormat(s.req.RunFormat)
	if err := EvaluateRuns(rep, s.Evaluation, s.Runs, runs.Options{Format: runFormat, NumericIDs: s.req.NumericIDs}, s.req.Digests); err != nil {
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
	return out.Finish(s.req.PerQueryOut, func(w io.Writer) error { return WritePerQuery(w, s.req.PerQueryOut, rep) })
}

// Close closes the judgments and the runs opened.
func (s *EvalSources) Close() {
	systems.Close(s.Runs)
	if s.Evaluation != nil {
		s.File.Close()
	}
}
