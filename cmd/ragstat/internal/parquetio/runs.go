// Package parquetio reads runs from Parquet files and writes per-query
// results as Parquet, so that DuckDB, Spark or BigQuery users can hand
// ragstat their tables and join its rows with their own. It is kept apart
// from the core packages because its library is large to compile. The
// evaluations of files as the command line makes them (EvalRequest, the
// whole of ragstat eval; EvaluateRuns; StagesRun) live here too: they read
// Parquet beside text and write per-query records in either.
//
// A run is a table with one row per returned item: query and item
// (strings), score (any number) and, optionally, rank (an integer). Rows
// may come in any order; each query's rows are ranked as a TREC run's
// lines are (by score, or by rank under --order rank). Problems name the
// row, counting from 1, where a text file's would name the line.
package parquetio

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
)

// Format names Parquet in results' input records.
const Format = "parquet"

// magic starts (and ends) every Parquet file.
var magic = []byte("PAR1")

// Is reports whether f holds Parquet, by its first bytes.
func Is(f *input.File) (bool, error) {
	head, err := f.Head(len(magic))
	if err != nil {
		return false, err
	}
	return bytes.Equal(head, magic), nil
}

// runColumns are the columns a run may have, and the kinds of value each
// takes.
var runColumns = map[string][]parquet.Kind{
	"query": {parquet.ByteArray},
	"item":  {parquet.ByteArray},
	"score": {parquet.Double, parquet.Float, parquet.Int32, parquet.Int64},
	"rank":  {parquet.Int32, parquet.Int64},
}

type runRow struct {
	Query *string  `parquet:"query,optional"`
	Item  *string  `parquet:"item,optional"`
	Score *float64 `parquet:"score,optional"`
	Rank  *int64   `parquet:"rank,optional"`
}

// ReadRun reads a run, gathered by query for runs.Lists.
func ReadRun(f *input.File) (map[string][]runs.Entry, error) {
	lists := map[string][]runs.Entry{}
	err := eachRow(f, runColumns, []string{"query", "item", "score"}, func(pf *parquet.File, row int, x *runRow) error {
		if bad := unkeyed(f.Name, row, x.Query, x.Item); bad != nil {
			return bad
		}
		_, hasRank := pf.Schema().Lookup("rank")
		bad := &diag.Error{File: f.Name, Line: row}
		switch {
		case x.Score == nil:
			bad.Query, bad.Item, bad.Msg = *x.Query, *x.Item, "row has no score"
		case hasRank && x.Rank == nil:
			bad.Query, bad.Item, bad.Msg = *x.Query, *x.Item, "row has no rank"
		default:
			e := runs.Entry{Doc: *x.Item, Score: *x.Score, Line: row, Rank: len(lists[*x.Query]) + 1}
			if x.Rank != nil {
				e.Rank = int(*x.Rank)
			}
			lists[*x.Query] = append(lists[*x.Query], e)
			return nil
		}
		return bad
	})
	if err != nil {
		return nil, err
	}
	return lists, nil
}

// unkeyed reports a row without a query or an item, or returns nil.
func unkeyed(file string, row int, query, item *string) *diag.Error {
	switch {
	case query == nil || strings.TrimSpace(*query) == "":
		return &diag.Error{File: file, Line: row, Msg: "row has no query"}
	case item == nil:
		return &diag.Error{File: file, Line: row, Query: *query, Msg: "row has no item"}
	}
	return nil
}

// openFile opens f as a Parquet file, its page headers checked against
// what its bytes can hold (checkPages) before any page is read; close
// releases the file once its rows are read.
func openFile(f *input.File) (pf *parquet.File, close func(), err error) {
	r, size, closer, err := f.ReaderAt()
	if err != nil {
		return nil, nil, err
	}
	unreadable := func(err error) error {
		closer.Close()
		return &diag.Error{File: f.Name, Msg: fmt.Sprintf("not a readable Parquet file: %v", err)}
	}
	if err := checkFooter(r, size); err != nil {
		return nil, nil, unreadable(err)
	}
	pf, err = parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, nil, unreadable(err)
	}
	if err := checkPages(r, size, pf.Metadata()); err != nil {
		return nil, nil, unreadable(err)
	}
	return pf, func() { closer.Close() }, nil
}

// open opens f as a Parquet file (openFile) and checks its columns: each
// known, of a kind it may take, and the required ones present.
func open(f *input.File, columns map[string][]parquet.Kind, required ...string) (*parquet.File, func(), error) {
	pf, done, err := openFile(f)
	if err != nil {
		return nil, nil, err
	}
	var problems []string
	for _, field := range pf.Schema().Fields() {
		kinds, known := columns[field.Name()]
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("unknown column %q", field.Name()))
		case !field.Leaf() || field.Repeated() || !slices.Contains(kinds, field.Type().Kind()):
			problems = append(problems, fmt.Sprintf("column %q is %s; it must be a single %s", field.Name(), describe(field), kindNames(kinds)))
		}
	}
	for _, name := range required {
		if _, ok := pf.Schema().Lookup(name); !ok {
			problems = append(problems, fmt.Sprintf("no column %q", name))
		}
	}
	if len(problems) > 0 {
		done()
		return nil, nil, &diag.Error{File: f.Name, Msg: strings.Join(problems, "; "),
			Hint: fmt.Sprintf("the columns are %s", strings.Join(slices.Sorted(maps.Keys(columns)), ", "))}
	}
	return pf, done, nil
}

func describe(field parquet.Field) string {
	switch {
	case !field.Leaf():
		return "a group"
	case field.Repeated():
		return "repeated"
	}
	return field.Type().Kind().String()
}

func kindNames(kinds []parquet.Kind) string {
	var s []string
	for _, k := range kinds {
		s = append(s, k.String())
	}
	return strings.Join(s, " or ")
}

// Evaluate scores the run in f, Parquet or any text format runs.Read
// reads, as the system name.
func Evaluate(ev *eval.Evaluator, name string, f *input.File, opt runs.Options) (*eval.Result, error) {
	isParquet, err := Is(f)
	if err != nil || !isParquet {
		return ev.Run(name, f, opt)
	}
	lists, err := ReadRun(f)
	if err != nil {
		return nil, err
	}
	return ev.RunLists(name, f.Name, Format, lists, opt)
}

// EvaluateRuns scores every run of sys with ev (Evaluate) into rep: the
// results, the record of the judgments file and of each run, and the
// notes on the evaluation. With digests, each record has its file's
// SHA-256, computed as the run is read.
func EvaluateRuns(rep *report.Eval, ev *eval.Evaluation, sys []*systems.Input, opt runs.Options, digests bool) error {
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
		res, err := Evaluate(ev.Evaluator, in.System(), in.File, opt)
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
