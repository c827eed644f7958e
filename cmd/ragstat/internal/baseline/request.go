package baseline

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/topics"
)

// A Request is a baseline run in words, as a command line gives them: the
// corpus and topics files ("-": standard input), the run's depth and tag,
// and the run's file.
type Request struct {
	Corpus, Topics string
	K              int    // passages per query (Options.K)
	Tag            string // the run tag, WriteRun's last column
	Out            string // the run's file; "-": standard output
	Force          bool   // replace Out if it exists
}

// Run ranks the corpus for the topics (Run) and writes the TREC run to
// r.Out, then a line saying what was ranked (Result.Summary) to stdout, or
// to stderr when the run went to standard output. Out is claimed before
// anything is read (outfile.Start: never an input, an existing file only
// when forced) and written atomically. Last, notes receives the Result's
// Warnings, which the caller shows as it shows notes.
func (r Request) Run(stdin io.Reader, stdout, stderr io.Writer, notes func(...string)) error {
	out, err := outfile.Start(outfile.Options{Force: r.Force, Stdout: stdout},
		[]outfile.Input{{Flag: "--corpus", Path: r.Corpus}, {Flag: "--topics", Path: r.Topics}}, outfile.Input{Flag: "--out", Path: r.Out})
	if err != nil {
		return err
	}
	defer out.Abort()
	fs := files.Batch{Stdin: stdin}
	cs, ts := files.ReadIn(&fs, r.Corpus, corpus.Read), files.ReadIn(&fs, r.Topics, topics.Read)
	if fs.Err != nil {
		return fs.Err
	}
	res, err := Run(cs, ts, Options{K: r.K})
	if err != nil {
		return err
	}
	if err := out.Finish(r.Out, func(w io.Writer) error { return WriteRun(w, res.Rankings, r.Tag) }); err != nil {
		return err
	}
	fmt.Fprintf(outfile.ReportTo(r.Out, stdout, stderr), "%s -> %s\n", res.Summary(), r.Out)
	notes(res.Warnings()...)
	return nil
}
