package parquetio

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/input"
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
func ReadJudgments(f *input.File, scale judgments.Scale) (set *judgments.Set, err error) {
	defer func() {
		if p := recover(); p != nil {
			set, err = nil, &diag.Error{File: f.Name, Msg: fmt.Sprintf("not a readable Parquet file: %v", p)}
		}
	}()
	pf, err := open(f, judgmentColumns, "query", "item", "grade")
	if err != nil {
		return nil, err
	}
	r := parquet.NewGenericReader[judgmentRow](pf, parquet.SchemaOf(new(judgmentRow)))
	defer r.Close()
	var js []judgments.Judgment
	var errs diag.List
	buf := make([]judgmentRow, 1024)
	for row := 1; ; {
		n, rerr := r.Read(buf)
		for _, x := range buf[:n] {
			switch {
			case x.Query == nil || strings.TrimSpace(*x.Query) == "":
				errs.Add(&diag.Error{File: f.Name, Line: row, Msg: "row has no query"})
			case x.Item == nil:
				errs.Add(&diag.Error{File: f.Name, Line: row, Query: *x.Query, Msg: "row has no item"})
			case x.Grade == nil:
				errs.Add(&diag.Error{File: f.Name, Line: row, Query: *x.Query, Item: *x.Item, Msg: "row has no grade"})
			default:
				js = append(js, judgments.Judgment{Query: *x.Query, Item: *x.Item, Grade: int(*x.Grade), Line: row})
			}
			row++
			if errs.Full() {
				return nil, errs.Err()
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, &diag.Error{File: f.Name, Line: row, Msg: fmt.Sprintf("reading Parquet: %v", rerr)}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if set, err = judgments.New(f.Name, js, scale); err != nil {
		return nil, err
	}
	set.Format = Format
	return set, nil
}
