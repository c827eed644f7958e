package pool

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/topics"
)

// A Request is a pool in words, as a command line gives them: the
// systems' files, the files beside them, the pool's settings and the
// queue's file. Errors about a setting are diag.OptionErrors naming it
// as an Option ("run_format", "topics").
type Request struct {
	// Systems are the runs and trace files, PATH or NAME=PATH
	// (systems.Open). Traces gives the formats of foreign traces
	// (systems.Options.Traces) once the queue's file is claimed; nil: none.
	Systems []string
	Traces  func() ([]systems.TraceReader, error)
	Stage   string // from traces, pool this stage only; "": every stage
	// RunFormat forces the runs' format ("", auto, trec, jsonl or json);
	// NumericIDs accepts JSON ids written as integers in runs and
	// Judgments (runs.Options).
	RunFormat  string
	NumericIDs bool
	// Judgments, Topics and Corpus are files as Sources holds them, read
	// when named.
	Judgments, Topics, Corpus string
	Depth                     int
	Seed                      uint64
	Out                       string // the queue's file; "-": standard output
	Force                     bool   // replace Out if it exists
}

// Run pools what r names and writes the queue to r.Out, then the summary
// (Result.WriteSummary) to stdout, or to stderr when the queue went to
// standard output. Out is claimed before anything is read (outfile.Start:
// never an input, an existing file only when forced) and written
// atomically; "-" among the files reads stdin.
func (r Request) Run(stdin io.Reader, stdout, stderr io.Writer) error {
	format, err := input.ParseFormat(r.RunFormat)
	if err != nil {
		return &diag.OptionError{Option: "run_format", Err: err}
	}
	ins := append(outfile.Inputs("input", systems.Paths(r.Systems)...), outfile.Input{Flag: "--judgments", Path: r.Judgments})
	out, err := outfile.Start(outfile.Options{Force: r.Force, Stdout: stdout}, ins, outfile.Input{Flag: "--out", Path: r.Out})
	if err != nil {
		return err
	}
	defer out.Abort()
	var readers []systems.TraceReader
	if r.Traces != nil {
		if readers, err = r.Traces(); err != nil {
			return err
		}
	}
	src := Sources{Stage: r.Stage, Runs: runs.Options{Format: format, NumericIDs: r.NumericIDs}}
	src.Systems, err = systems.Open(r.Systems, stdin, systems.Options{Accept: []systems.Kind{systems.Run, systems.Traces}, Traces: readers})
	defer systems.Close(src.Systems)
	if err != nil {
		return err
	}
	fs := files.Batch{Stdin: stdin}
	src.Corpus, src.Topics = files.ReadIn(&fs, r.Corpus, corpus.Read), files.ReadIn(&fs, r.Topics, topics.Read)
	src.Judgments = files.ReadIn(&fs, r.Judgments, func(f *input.File) (*judgments.Set, error) {
		return judgments.Read(f, judgments.Options{Scale: JudgedScale, NumericIDs: r.NumericIDs})
	})
	if fs.Err != nil {
		return fs.Err
	}
	res, err := Pool(src, Options{Depth: r.Depth, Seed: r.Seed})
	if err != nil {
		return err
	}
	if err := out.Finish(r.Out, func(w io.Writer) error { return WriteQueue(w, res.Queue) }); err != nil {
		return err
	}
	report := outfile.ReportTo(r.Out, stdout, stderr)
	if err := res.WriteSummary(report, r.Out); err != nil {
		return err
	}
	if j := src.Judgments; j != nil && j.LLMLen() > 0 {
		_, err = fmt.Fprintf(report, "%s holds %d LLM labels: only people's grades count as judged, so the pairs the LLM labelled are pooled for people to grade\n",
			idtext.Show(j.File), j.LLMLen())
	}
	return err
}
