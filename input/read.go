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
