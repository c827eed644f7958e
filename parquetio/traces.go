package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/systems"
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
		data, err := f.ReadAll()
		if err != nil {
			return "", err
		}
		pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return "", nil
		}
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

// readTraces hands every row's trace to each. A file the Parquet library
// cannot make sense of is an error, never a crash.
func readTraces(f *input.File, each func(int, []byte) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &diag.Error{File: f.Name, Msg: fmt.Sprintf("not a readable Parquet file: %v", p)}
		}
	}()
	pf, err := open(f, traceColumns, "trace")
	if err != nil {
		return err
	}
	r := parquet.NewGenericReader[traceRow](pf, parquet.SchemaOf(new(traceRow)))
	defer r.Close()
	buf := make([]traceRow, 64)
	var errs diag.List
	for row := 1; ; {
		n, rerr := r.Read(buf)
		for _, x := range buf[:n] {
			if x.Trace == nil {
				errs.Add(&diag.Error{File: f.Name, Line: row, Msg: "row has no trace"})
			} else if err := each(row, []byte(*x.Trace)); err != nil {
				errs.Add(err)
				return errs.Err()
			}
			row++
		}
		if errors.Is(rerr, io.EOF) {
			return errs.Err()
		}
		if rerr != nil {
			errs.Add(&diag.Error{File: f.Name, Line: row, Msg: fmt.Sprintf("reading Parquet: %v", rerr)})
			return errs.Err()
		}
	}
}
