package remap

import (
	"cmp"
	"fmt"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/topics"
)

// A Request is a remap in words, as a command line gives them: the files
// read ("-": standard input), how to remap, and where the files go. Errors
// about a setting are diag.OptionErrors naming it as an Option ("topics",
// "out_topics", "strict").
type Request struct {
	// OldChunks and NewChunks are the chunk files (chunks.Read) of the
	// chunking judged and of the one to carry the judgments to; Documents
	// holds the text of every document revision (chunks.ReadDocuments).
	OldChunks, NewChunks, Documents string
	Judgments                       string // judgments of the old chunks, on the scale Grades (MIN..MAX)
	Grades                          string
	Topics                          string // topics whose facts' support is remapped too; "": none
	Options
	// Out is where the files go: Out.Judgments is required, Out.Topics
	// goes with Topics, and Out.Review empty sends the review lines to
	// stderr.
	Out   Paths
	Force bool // replace output files that exist
}

// Run remaps the judgments r names, and the facts' support of its topics
// (the function Run), writes the summary (Result.WriteSummary) to stdout,
// then the files (Result.Save). The outputs are claimed before anything
// is read (outfile.Start: never an input, an existing file only when
// forced) and written atomically. When the result is Withheld, only the
// review lines are written and the error, on "strict", says where they
// are. A failure to write the summary is an outfile.ReportError.
func (r Request) Run(stdin io.Reader, stdout, stderr io.Writer) error {
	if (r.Topics == "") != (r.Out.Topics == "") {
		return &diag.OptionError{Msg: "{topics} and {out_topics} go together"}
	}
	ins := []outfile.Input{{Flag: "--old-chunks", Path: r.OldChunks}, {Flag: "--new-chunks", Path: r.NewChunks},
		{Flag: "--documents", Path: r.Documents}, {Flag: "--judgments", Path: r.Judgments}, {Flag: "--topics", Path: r.Topics}}
	out, err := outfile.Start(outfile.Options{Force: r.Force, Stdout: stdout}, ins,
		outfile.Input{Flag: "--out", Path: r.Out.Judgments}, outfile.Input{Flag: "--review", Path: r.Out.Review}, outfile.Input{Flag: "--out-topics", Path: r.Out.Topics})
	if err != nil {
		return err
	}
	defer out.Abort()
	fs := files.Batch{Stdin: stdin}
	src := Sources{Old: files.ReadIn(&fs, r.OldChunks, chunks.Read), New: files.ReadIn(&fs, r.NewChunks, chunks.Read),
		Documents: files.ReadIn(&fs, r.Documents, chunks.ReadDocuments), Judgments: files.ReadIn(&fs, r.Judgments, settings.JudgmentsOn(r.Grades)),
		Topics: files.ReadIn(&fs, r.Topics, topics.Read)}
	if fs.Err != nil {
		return fs.Err
	}
	if src.Judgments != nil {
		if err := settings.RefuseLabels(src.Judgments, "remap carries"); err != nil {
			return err
		}
	}
	res, err := Run(src, r.Options)
	if err != nil {
		return err
	}
	if err := res.WriteSummary(stdout); err != nil {
		return &outfile.ReportError{Err: err}
	}
	if err := res.Save(out, r.Out, stdout, stderr); err != nil || !res.Withheld {
		return err
	}
	return &diag.OptionError{Msg: fmt.Sprintf("%d review lines ({strict}): check them in %s; the remapped files were not written",
		len(res.Review), diag.Literal(cmp.Or(r.Out.Review, "standard error")))}
}
