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
