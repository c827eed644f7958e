package assess

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// A ServeRequest is a session of the assessment app in words, as a
// command line gives them: the database, the files the task is built
// from ("-": standard input), where to listen and the scale of a new
// database.
type ServeRequest struct {
	DB string // the database (SQLite); created when missing
	// Queue is the queue to judge (pool.ReadQueue); Corpus holds the
	// passages' text and Topics the queries' text and facts (NewTask).
	Queue, Corpus, Topics string
	Addr, Token           string // where to listen and the access token (RunOptions)
	Grades                string // a new database's scale, MIN..MAX (ServeFile)
}

// Run builds the task (NewTask) and serves it on the database until ctx
// ends (ServeFile), printing the URL to open to out and logging requests
// to logger; then it tells logger's writer, under its prefix but without a
// time, that every grade acknowledged is in the database. The database is
// read and written in place: naming one of the files the task is built
// from is an error.
func (r ServeRequest) Run(ctx context.Context, stdin io.Reader, out io.Writer, logger *log.Logger) error {
	ins := []outfile.Input{{Flag: "--queue", Path: r.Queue}, {Flag: "--corpus", Path: r.Corpus}, {Flag: "--topics", Path: r.Topics}}
	if _, err := outfile.Start(outfile.Options{Force: true}, ins, outfile.Input{Flag: "--db", Path: r.DB}); err != nil {
		return err
	}
	fs := files.Batch{Stdin: stdin}
	q, cs, ts := files.ReadIn(&fs, r.Queue, pool.ReadQueue), files.ReadIn(&fs, r.Corpus, corpus.Read), files.ReadIn(&fs, r.Topics, topics.Read)
	if fs.Err != nil {
		return fs.Err
	}
	task, err := NewTask(r.Queue, q, cs, ts)
	if err != nil {
		return err
	}
	if err := ServeFile(ctx, r.DB, r.Grades, task, RunOptions{Addr: r.Addr, Token: r.Token, Out: out, Log: logger}); err != nil {
		return err
	}
	fmt.Fprintln(logger.Writer(), logger.Prefix()+"stopped; every acknowledged grade is in", r.DB)
	return nil
}

// An ExportRequest is an export in words, as a command line gives them:
// the database, whose grades and in which format, and the file to write.
type ExportRequest struct {
	DB string
	ExportOptions
	Out   string // "-": standard output
	Force bool   // replace Out if it exists
}

// Run writes the judgments r selects from the database (ExportFile) to
// r.Out, claimed before the database is opened (outfile.Start: never the
// database, an existing file only when forced) and written atomically.
// Last, notes receives a line saying what was written (Exported), which
// the caller shows as it shows notes.
func (r ExportRequest) Run(ctx context.Context, stdout io.Writer, notes func(...string)) error {
	out, err := outfile.Start(outfile.Options{Force: r.Force, Stdout: stdout}, outfile.Inputs("--db", r.DB), outfile.Input{Flag: "--out", Path: r.Out})
	if err != nil {
		return err
	}
	defer out.Abort()
	var n int
	var scale judgments.Scale
	err = out.Finish(r.Out, func(w io.Writer) (err error) {
		n, scale, err = ExportFile(ctx, r.DB, w, r.ExportOptions)
		return err
	})
	if err != nil {
		return err
	}
	notes(Exported(n, scale))
	return nil
}
