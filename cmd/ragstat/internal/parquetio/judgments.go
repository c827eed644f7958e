package parquetio

import (
	"github.com/parquet-go/parquet-go"

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
