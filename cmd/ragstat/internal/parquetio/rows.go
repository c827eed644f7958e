package parquetio

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
)

// eachRow opens f (see open), reads every row as a T and calls each with it
// and its number (from 1); each returns a problem with the row, or nil.
// Problems are gathered up to diag.Max. A file the Parquet library cannot
// make sense of is an error, never a crash.
func eachRow[T any](f *input.File, columns map[string][]parquet.Kind, required []string, each func(pf *parquet.File, row int, x *T) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &diag.Error{File: f.Name, Msg: fmt.Sprintf("not a readable Parquet file: %v", p)}
		}
	}()
	pf, done, err := open(f, columns, required...)
	if err != nil {
		return err
	}
	defer done()
	r := parquet.NewGenericReader[T](pf, parquet.SchemaOf(new(T)))
	defer r.Close()
	var errs diag.List
	buf := make([]T, 256)
	for row := 1; ; {
		n, rerr := r.Read(buf)
		for i := range buf[:n] {
			if errs.Add(each(pf, row, &buf[i])) {
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
