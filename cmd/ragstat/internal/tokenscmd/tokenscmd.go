// Package tokenscmd is the body of ragstat tokens: the exact token count
// of each file named.
package tokenscmd

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/tokenize"
)

// Count counts the tokens of each file at paths ("-": stdin) with
// tok and writes a line COUNT<TAB>TOKENIZER<TAB>PATH for each, then, for
// more than one file, the total as a line whose path is "total". A path or
// tokenizer name holding a tab, a line break or any other character that
// is not printable is written quoted, as the text formats write ids, so
// that it cannot forge a line. An error writing to w is returned as a
// [WriteError].
func Count(w io.Writer, tok tokenize.Tokenizer, paths []string, stdin io.Reader) error {
	total := 0
	line := func(n int, path string) error {
		if _, err := fmt.Fprintf(w, "%d\t%s\t%s\n", n, idtext.Show(tok.Name()), idtext.Show(path)); err != nil {
			return &WriteError{Err: err}
		}
		return nil
	}
	for _, path := range paths {
		data, err := input.Read(path, stdin, (*input.File).ReadAll)
		if err != nil {
			return err
		}
		n := tok.Count(string(data))
		if err := tokenize.Err(tok); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		total += n
		if err := line(n, path); err != nil {
			return err
		}
	}
	if len(paths) > 1 {
		return line(total, "total")
	}
	return nil
}

// WriteError is Count failing to write its counts, rather than to
// read a file.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return "tokenize: writing the counts: " + e.Err.Error() }

func (e *WriteError) Unwrap() error { return e.Err }
