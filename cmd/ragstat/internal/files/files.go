// Package files opens and reads the input files a command names: every
// path in turn, keeping the first error, and sizes written as the command
// line writes them.
package files

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/input"
)

// OpenAll opens every path ("-": stdin, once). On an error the files
// already opened are closed.
func OpenAll(paths []string, stdin io.Reader) ([]*input.File, error) {
	var files []*input.File
	for _, p := range paths {
		f, err := input.Open(p, stdin)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// CloseAll closes every file (removing the copies of standard input).
func CloseAll(files []*input.File) {
	for _, f := range files {
		f.Close()
	}
}

// A Batch reads the input files of a command in turn and keeps the first
// error: once one file fails, the others are not read. The zero Batch
// reads no standard input.
type Batch struct {
	Stdin io.Reader // what "-" reads
	Err   error     // the first error met
}

// ReadIn reads the file at path with read, as input.Read does, unless path is
// empty or an earlier file of b failed: then it is the zero T.
func ReadIn[T any](b *Batch, path string, read func(*input.File) (T, error)) T {
	var v T
	if b.Err == nil && path != "" {
		v, b.Err = input.Read(path, b.Stdin, read)
	}
	return v
}

// ParseSize reads a size such as 512MiB, 32GiB, 10G or 1000000 (bytes); K,
// M, G and T are powers of 1024 with or without "iB".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "B"), "i")
	shift := 0
	if t != "" {
		if i := strings.Index("KMGT", strings.ToUpper(t[len(t)-1:])); i >= 0 {
			shift, t = 10*(i+1), t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("size %q: write a positive number of bytes, optionally with K, M, G or T (powers of 1024), e.g. 32GiB", s)
	}
	return n << shift, nil
}
