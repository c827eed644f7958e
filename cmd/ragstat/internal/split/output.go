package split

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// Judgments divides the judgments of s as r divides their topics. A judged
// query without a topic is an error: it would belong to neither side.
func (r *Result) Judgments(s *judgments.Set) (dev, heldOut []judgments.Judgment, err error) {
	var errs diag.List
	for _, id := range s.IDs() {
		js := s.Judgments(id)
		held, known := r.held[id]
		switch {
		case !known:
			errs.Add(&diag.Error{File: s.File, Line: js[0].Line, Query: id, Msg: "judged query has no topic",
				Hint: "add the topic, or remove its judgments; split places queries by their topics"})
		case held:
			heldOut = append(heldOut, js...)
		default:
			dev = append(dev, js...)
		}
	}
	return dev, heldOut, errs.Err()
}

// Files are the files a split writes, topics first: the judgments' two
// come only when judgments are split along.
var Files = []string{"dev.topics.jsonl", "held-out.topics.jsonl", "dev.judgments.jsonl", "held-out.judgments.jsonl"}

// FilesOf are the files a split writes, with judgments or without.
func FilesOf(withJudgments bool) []string {
	if withJudgments {
		return Files
	}
	return Files[:2]
}

// Output is one file of a split: its name (one of Files) and its content.
type Output struct {
	Name  string
	Write func(io.Writer) error
}

// Run splits the topics of ts (Split) and, when js is not nil, their
// judgments along (Result.Judgments); it returns the split and its files,
// in the order of Files.
func Run(ts *topics.Set, js *judgments.Set, opt Options) (*Result, []Output, error) {
	r, err := Split(ts.Topics, opt)
	if err != nil {
		return nil, nil, err
	}
	outs := []Output{
		{Files[0], func(w io.Writer) error { return topics.Write(w, r.Dev) }},
		{Files[1], func(w io.Writer) error { return topics.Write(w, r.HeldOut) }},
	}
	if js == nil {
		return r, outs, nil
	}
	dev, held, err := r.Judgments(js)
	if err != nil {
		return nil, nil, err
	}
	return r, append(outs,
		Output{Files[2], func(w io.Writer) error { return judgments.WriteJSONL(w, dev) }},
		Output{Files[3], func(w io.Writer) error { return judgments.WriteJSONL(w, held) }}), nil
}

// WriteSummary prints how the topics were split, the size of each side and
// each slice's topics on either side.
func (r *Result) WriteSummary(w io.Writer) error {
	n := len(r.Dev) + len(r.HeldOut)
	fmt.Fprintf(w, "split: %d topics, group by %s, held-out share %g, seed %d\n", n, r.opt.GroupBy, r.opt.HeldOut, r.opt.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "side\ttopics\tgroups\tshare\n")
	fmt.Fprintf(tw, "dev\t%d\t%d\t%.2f\n", len(r.Dev), r.DevGroups, float64(len(r.Dev))/float64(n))
	fmt.Fprintf(tw, "held-out\t%d\t%d\t%.2f\n", len(r.HeldOut), r.HeldOutGroups, float64(len(r.HeldOut))/float64(n))
	if len(r.Slices) > 0 {
		fmt.Fprintf(tw, "\nslice\tdev\theld-out\theld-out share\n")
		for _, s := range r.Slices {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\n", s.Tag, s.Dev, s.HeldOut, float64(s.HeldOut)/float64(s.Dev+s.HeldOut))
		}
	}
	return tw.Flush()
}

// Claim makes the folder dir and claims in out the files a split writes
// there (FilesOf), as the output flag --out-dir.
func Claim(out *outfile.Set, dir string, withJudgments bool) error {
	if err := out.Dir(dir); err != nil {
		return err
	}
	for _, name := range FilesOf(withJudgments) {
		if err := out.Claim("--out-dir", filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// Save writes the outputs into dir through out (see Claim), commits them,
// and tells stdout each file written.
func Save(out *outfile.Set, dir string, outputs []Output, stdout io.Writer) error {
	for _, o := range outputs {
		if err := out.Write(filepath.Join(dir, o.Name), o.Write); err != nil {
			return err
		}
	}
	if err := out.Commit(); err != nil {
		return err
	}
	for _, o := range outputs {
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, o.Name))
	}
	return nil
}
