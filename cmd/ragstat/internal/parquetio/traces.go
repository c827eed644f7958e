package parquetio

import (
	"errors"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
)

// traceColumns: a table of traces has one string column, "trace", each
// row one trace as ragstat's JSON Lines would hold it (docs/formats.md).
var traceColumns = map[string][]parquet.Kind{"trace": {parquet.ByteArray}}

type traceRow struct {
	Trace *string `parquet:"trace,optional"`
}

// Traces reads traces from Parquet, named "parquet": a table whose one
// column, "trace", holds a trace as JSON in every row, checked exactly as a
// JSON Lines file's lines are (a problem names the row).
var Traces = systems.TraceReader{
	Detect: func(f *input.File) (format string, err error) {
		defer func() {
			if recover() != nil {
				format, err = "", nil // not a table of traces; the run reader will say what is wrong
			}
		}()
		ok, err := Is(f)
		if !ok || err != nil {
			return "", err
		}
		pf, done, err := openFile(f)
		if err != nil {
			var known *diag.Error
			if errors.As(err, &known) && strings.HasPrefix(known.Msg, "not a readable Parquet file") {
				return "", nil // the run reader will say what is wrong
			}
			return "", err
		}
		defer done()
		if _, ok := pf.Schema().Lookup("trace"); !ok {
			return "", nil
		}
		return Format, nil
	},
	Scan: func(f *input.File, _ string, fn func(*trace.Trace) error) error {
		return trace.ScanRecords(f.Name, func(each func(int, []byte) error) error {
			return readTraces(f, each)
		}, 0, fn)
	},
}

// readTraces hands every row's trace to each.
func readTraces(f *input.File, each func(int, []byte) error) error {
	return eachRow(f, traceColumns, []string{"trace"}, func(_ *parquet.File, row int, x *traceRow) error {
		if x.Trace == nil {
			return &diag.Error{File: f.Name, Line: row, Msg: "row has no trace"}
		}
		return each(row, []byte(*x.Trace))
	})
}
