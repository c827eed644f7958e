package remap

import (
	"cmp"
	"fmt"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// Sources are what a remap reads, each read by the caller.
type Sources struct {
	Old, New  *chunks.Set       // the chunking judged, and the one to carry the judgments to
	Documents *chunks.Documents // the text of every document revision
	Judgments *judgments.Set    // judgments of the old chunks
	Topics    *topics.Set       // topics whose facts' support is remapped too; nil for none
}

// Options say how to remap.
type Options struct {
	MinOverlap float64 // the share of an old chunk a new one must cover (see New)
	// Strict withholds the remapped judgments and topics when anything
	// needs review: they would be taken for finished ones.
	Strict bool
}

// Result is a remap: the judgments and, when topics were given, the topics.
type Result struct {
	Judgments *Judgments
	Topics    *Topics  // nil without Sources.Topics
	Review    []Review // the judgments' lines, then the topics'
	// Withheld is set under Options.Strict when there are lines to
	// review: only the review is to be written.
	Withheld bool
	src      Sources
	opt      Options
}

// Run remaps the judgments of src (and the facts' support of its topics)
// from src.Old to src.New.
func Run(src Sources, opt Options) (*Result, error) {
	m, err := New(src.Old, src.New, src.Documents, opt.MinOverlap)
	if err != nil {
		return nil, err
	}
	r := &Result{src: src, opt: opt}
	if r.Judgments, err = m.Judgments(src.Judgments); err != nil {
		return nil, err
	}
	r.Review = r.Judgments.Review
	if src.Topics != nil {
		if r.Topics, err = m.Topics(src.Topics); err != nil {
			return nil, err
		}
		r.Review = append(r.Review, r.Topics.Review...)
	}
	r.Withheld = opt.Strict && len(r.Review) > 0
	return r, nil
}

// WriteSummary prints what was remapped and how each query's judgments
// (and each topic's supporting pieces) fared.
func (r *Result) WriteSummary(w io.Writer) error {
	js := r.src.Judgments
	fmt.Fprintf(w, "remap: %d judgments of %d queries, %s -> %s (min-overlap %g)\n", js.Len(), len(js.IDs()), r.src.Old.File, r.src.New.File, r.opt.MinOverlap)
	if err := WriteCounts(w, "query", "judgments", r.Judgments.Counts); err != nil || r.Topics == nil {
		return err
	}
	fmt.Fprintln(w)
	return WriteCounts(w, "topic", "pieces", r.Topics.Counts)
}

// Output is one file of a remap: Name is "judgments", "topics" or
// "review".
type Output struct {
	Name  string
	Write func(io.Writer) error
}

// Outputs are the files a remap writes, in order: the judgments (JSONL,
// with spans) and, when topics were remapped, the topics, unless they are
// Withheld; then the review lines (JSONL).
func (r *Result) Outputs() []Output {
	var outs []Output
	if !r.Withheld {
		outs = append(outs, Output{"judgments", func(w io.Writer) error { return judgments.WriteJSONL(w, r.Judgments.Judgments) }})
		if r.Topics != nil {
			outs = append(outs, Output{"topics", func(w io.Writer) error { return topics.Write(w, r.Topics.Topics) }})
		}
	}
	return append(outs, Output{"review", func(w io.Writer) error { return WriteReview(w, r.Review) }})
}

// Paths are where a remap's files go; without Review the review lines go
// to standard error.
type Paths struct{ Judgments, Topics, Review string }

// Save writes the Outputs to their paths through out and commits them;
// unless they were Withheld, it then tells stdout what was written where.
func (r *Result) Save(out *outfile.Set, paths Paths, stdout, stderr io.Writer) error {
	to := map[string]string{"judgments": paths.Judgments, "topics": paths.Topics, "review": paths.Review}
	for _, o := range r.Outputs() {
		var err error
		if to[o.Name] == "" { // the review lines without a path
			err = o.Write(stderr)
		} else {
			err = out.Write(to[o.Name], o.Write)
		}
		if err != nil {
			return err
		}
	}
	if err := out.Commit(); err != nil || r.Withheld {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d judgments to %s\n", len(r.Judgments.Judgments), paths.Judgments)
	if r.Topics != nil {
		fmt.Fprintf(stdout, "wrote %d topics to %s\n", len(r.Topics.Topics), paths.Topics)
	}
	fmt.Fprintf(stdout, "%d review lines to %s\n", len(r.Review), cmp.Or(paths.Review, "standard error"))
	return nil
}
