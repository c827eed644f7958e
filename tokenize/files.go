package tokenize

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/input"
)

// CountFiles counts the tokens of each file at paths ("-": stdin) with
// tok and writes a line COUNT<TAB>TOKENIZER<TAB>PATH for each, then, for
// more than one file, the total as a line whose path is "total".
func CountFiles(w io.Writer, tok Tokenizer, paths []string, stdin io.Reader) error {
	total := 0
	for _, path := range paths {
		data, err := input.Read(path, stdin, (*input.File).ReadAll)
		if err != nil {
			return err
		}
		n := tok.Count(string(data))
		total += n
		fmt.Fprintf(w, "%d\t%s\t%s\n", n, tok.Name(), path)
	}
	if len(paths) > 1 {
		fmt.Fprintf(w, "%d\t%s\ttotal\n", total, tok.Name())
	}
	return nil
}
