package parquetio

import (
	"bytes"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
)

// judgmentColumns: a table of judgments has one row per judged item.
var judgmentColumns = map[string][]parquet.Kind{
	"query": {parquet.ByteArray},
	"item":  {parquet.ByteArray},
	"grade": {parquet.Int32, parquet.Int64},
}

type judgmentRow struct {
	Query *string `parquet:"query,optional"`
	Item  *string `parquet:"item,optional"`
	Grade *int64  `parquet:"grade,optional"`
}

// ReadJudgments reads judgments from Parquet: columns query, item
// (strings) and grade (an integer), one row per judged item, checked as
// judgments.Read checks a text file's (grades on scale, no item judged
// twice); a problem names the row, counted from 1.
func ReadJudgments(f *input.File, scale judgments.Scale) (*judgments.Set, error) {
	var js []judgments.Judgment
	err := eachRow(f, judgmentColumns, []string{"query", "item", "grade"}, func(_ *parquet.File, row int, x *judgmentRow) error {
		if bad := unkeyed(f.Name, row, x.Query, x.Item); bad != nil {
			return bad
		}
		if x.Grade == nil {
			return &diag.Error{File: f.Name, Line: row, Query: *x.Query, Item: *x.Item, Msg: "row has no grade"}
		}
		js = append(js, judgments.Judgment{Query: *x.Query, Item: *x.Item, Grade: int(*x.Grade), Line: row})
		return nil
	})
	if err != nil {
		return nil, err
	}
	set, err := judgments.New(f.Name, js, scale)
	if err != nil {
		return nil, err
	}
	set.Format = Format
	return set, nil
}

// ReadAnyJudgments reads judgments from Parquet, or else from any text
// format judgments.Read reads (opt.Scale applies to both).
func ReadAnyJudgments(f *input.File, opt judgments.Options) (*judgments.Set, error) {
	if isParquet, err := Is(f); err == nil && isParquet {
		return ReadJudgments(f, opt.Scale)
	}
	return judgments.Read(f, opt)
}

// Files reaches files as a command line names them: by path, "-" for
// stdin (input.Open), the judgments in Parquet or text (ReadAnyJudgments).
func Files(stdin io.Reader) eval.Files {
	return eval.Files{Open: func(path string) (*input.File, error) { return input.Open(path, stdin) }, ReadJudgments: ReadAnyJudgments}
}

// MergedName is the name under which MergingJudgments opens the judgments
// of several files merged: the paths joined by " + ".
func MergedName(paths []string) string { return strings.Join(paths, " + ") }

// MergingJudgments is files where MergedName(paths), for two paths or
// more, opens the judgments of every path, each read with opt
// (ReadAnyJudgments) and merged (judgments.Merge: a pair graded
// differently in two files is an error naming both; LLM labels kept beside
// people's grades, of two labels of a pair the later file's, which the
// files' Config.Warn is told), as one JSON Lines file of that name. Other names open as files opens them.
func MergingJudgments(files eval.Files, paths []string, opt judgments.Options) eval.Files {
	if len(paths) < 2 {
		return files
	}
	name, open := MergedName(paths), files.Open
	files.Open = func(path string) (*input.File, error) {
		if path != name {
			return open(path)
		}
		sets := make([]*judgments.Set, len(paths))
		var warn func(string)
		for i, p := range paths {
			f, err := open(p)
			if err != nil {
				return nil, err
			}
			warn = f.Config().Warn
			sets[i], err = ReadAnyJudgments(f, opt)
			f.Close()
			if err != nil {
				return nil, err
			}
		}
		merged, err := judgments.Merge(sets, opt.Scale, nil)
		if err != nil {
			return nil, err
		}
		for _, n := range merged.Notes() {
			if warn != nil {
				warn(n)
			}
		}
		var b bytes.Buffer
		for _, id := range merged.IDs() {
			if err := judgments.WriteJSONL(&b, merged.Judgments(id)); err != nil {
				return nil, err
			}
		}
		for _, id := range merged.LLMQueries() {
			if err := judgments.WriteJSONL(&b, merged.LLMJudgments(id)); err != nil {
				return nil, err
			}
		}
		return input.FromReader(name, &b)
	}
	return files
}
