package input

import "io"

// Read opens path ("-": stdin), reads it with read and closes it.
func Read[T any](path string, stdin io.Reader, read func(*File) (T, error)) (T, error) {
	f, err := Open(path, stdin)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}

// OpenAll opens every path ("-": stdin, once). On an error the files
// already opened are closed.
func OpenAll(paths []string, stdin io.Reader) ([]*File, error) {
	var files []*File
	for _, p := range paths {
		f, err := Open(p, stdin)
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
func CloseAll(files []*File) {
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

// ReadIn reads the file at path with read, as Read does, unless path is
// empty or an earlier file of b failed: then it is the zero T.
func ReadIn[T any](b *Batch, path string, read func(*File) (T, error)) T {
	var v T
	if b.Err == nil && path != "" {
		v, b.Err = Read(path, b.Stdin, read)
	}
	return v
}
