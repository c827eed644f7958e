package mergecmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
)

// Output says how Merge's result is rendered: an eval result in any of
// report's formats but html, a stages result as table or json, a
// comparison by Compare.
type Output struct {
	// Format is the format asked for; CSVComments puts an eval result's
	// policy and notes as # lines above CSV's header.
	Format      string
	CSVComments bool
	// Compare renders a merged comparison in Format, returning the lines
	// the format has no place for.
	Compare func(io.Writer, *compare.Result) ([]string, error)
	// PerQuery and Summary choose an eval result's rows
	// (report.Eval.ChoosePerQuery); PerQuery prints a stages result's.
	PerQuery, Summary bool
}

// Result is the result the merged parts make together, of the kind they
// all are, ready to render.
type Result struct {
	out     Output
	eval    *Merged
	stages  *report.Stages
	compare *compare.Result
	// Reasons are a merged comparison's failed gate rules, one line
	// each; none passes.
	Reasons []string
}

// Merge reads the partial results at paths ("-": stdin) of ragstat eval,
// stages or compare --shard I/N --format json, all of one kind, and
// merges them (MergeEval, MergeStages, MergeCompare). It refuses parts of
// mixed kinds and a format out wants that their kind has not, before it
// reads them whole.
func Merge(paths []string, stdin io.Reader, out Output) (*Result, error) {
	if err := report.CheckRows(out.PerQuery, out.Summary); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no partial results to merge")
	}
	kinds := make([]string, len(paths))
	for i, path := range paths {
		var err error
		if kinds[i], err = input.Read(path, stdin, KindOf); err != nil {
			return nil, err
		}
	}
	kind, err := OneKind(paths, kinds)
	if err != nil {
		return nil, err
	}
	r := &Result{out: out}
	switch {
	case kind == eval.KindStages:
		if out.Format != "table" && out.Format != "json" {
			return nil, fmt.Errorf("stages results merge as table or json, not %s", out.Format)
		}
		parts, err := readAll(paths, stdin, report.ReadStages)
		if err != nil {
			return nil, err
		}
		if r.stages, err = MergeStages(paths, parts); err != nil {
			return nil, err
		}
		return r, nil
	case kind == eval.KindCompare:
		if !slices.Contains(append(report.CompareFormats, "html"), out.Format) {
			return nil, fmt.Errorf("compare results merge as %s or html, not %s", strings.Join(report.CompareFormats, ", "), out.Format)
		}
		parts, err := readAll(paths, stdin, report.ReadComparison)
		if err != nil {
			return nil, err
		}
		if r.compare, r.Reasons, err = MergeCompare(paths, parts); err != nil {
			return nil, err
		}
		return r, nil
	case out.Format == "html":
		return nil, fmt.Errorf("eval results merge as table, json, jsonl, csv, tsv, markdown or trec, not html")
	}
	parts, err := readAll(paths, stdin, report.Read)
	if err != nil {
		return nil, err
	}
	if r.eval, err = MergeEval(paths, parts); err != nil {
		return nil, err
	}
	return r, nil
}

// readAll reads every path with read.
func readAll[T any](paths []string, stdin io.Reader, read func(*input.File) (T, error)) ([]T, error) {
	parts := make([]T, len(paths))
	for i, path := range paths {
		var err error
		if parts[i], err = input.Read(path, stdin, read); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// Render writes r to w in the format Merge was given. It returns the
// lines for the caller to show apart, as one run's command shows them: an
// eval result's notes the format has no room for (report.Eval.Beside), a
// comparison CSV's notes without comments.
func (r *Result) Render(w io.Writer) (apart []string, err error) {
	switch {
	case r.stages != nil:
		r.stages.PerQuery = r.out.PerQuery
		if r.out.Format == "table" && !r.out.PerQuery { // as one stages run summarises
			for _, sys := range r.stages.Result.Systems {
				sys.Summarize()
			}
		}
		return nil, report.RenderStages(w, r.out.Format, r.stages)
	case r.compare != nil:
		return r.out.Compare(w, r.compare)
	}
	r.eval.ChoosePerQuery(r.out.PerQuery, r.out.Summary)
	r.eval.CSVComments = r.out.CSVComments
	if err := report.Render(w, r.out.Format, r.eval.Eval); err != nil {
		return nil, err
	}
	return r.eval.Beside(r.out.Format), nil
}
