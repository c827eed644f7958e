package split

import (
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/topics"
)

// A Request is a split in words, as a command line gives them: the files
// read ("-": standard input), how to split, and the folder to write to.
// Errors about a setting are diag.OptionErrors naming it as an Option
// ("group_by").
type Request struct {
	Topics    string
	Judgments string // judgments split along, on the scale Grades (MIN..MAX); "": none
	Grades    string
	HeldOut   float64 // Options.HeldOut
	Seed      uint64
	GroupBy   string // family or tag:PREFIX (ParseGroupBy)
	OutDir    string // the folder the Files go to, made when missing
	Force     bool   // replace files there that exist
}

// Run splits the topics r names, and the judgments along (the function
// Run), writes the summary (Result.WriteSummary) to stdout, then the
// files into r.OutDir (Save), telling stdout each. The files
// are claimed before anything is read (Claim: never an input, an existing
// file only when forced) and written atomically. A failure to write the
// summary is an outfile.ReportError.
func (r Request) Run(stdin io.Reader, stdout io.Writer) error {
	by, err := ParseGroupBy(r.GroupBy)
	if err != nil {
		return err
	}
	out := outfile.New(outfile.Options{Force: r.Force}, outfile.Input{Flag: "--topics", Path: r.Topics}, outfile.Input{Flag: "--judgments", Path: r.Judgments})
	defer out.Abort()
	if err := Claim(out, r.OutDir, r.Judgments != ""); err != nil {
		return err
	}
	fs := files.Batch{Stdin: stdin}
	ts, js := files.ReadIn(&fs, r.Topics, topics.Read), files.ReadIn(&fs, r.Judgments, settings.JudgmentsOn(r.Grades))
	if fs.Err != nil {
		return fs.Err
	}
	if js != nil {
		if err := settings.RefuseLabels(js, "split divides"); err != nil {
			return err
		}
	}
	res, outputs, err := Run(ts, js, Options{HeldOut: r.HeldOut, Seed: r.Seed, GroupBy: by})
	if err != nil {
		return err
	}
	if err := res.WriteSummary(stdout); err != nil {
		return &outfile.ReportError{Err: err}
	}
	return Save(out, r.OutDir, outputs, stdout)
}
