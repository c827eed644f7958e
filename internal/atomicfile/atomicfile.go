// Package atomicfile writes a file through a temporary file in its
// directory, renamed over the path once complete: a failure or a crash
// never leaves half a file behind, and readers see the old file or the new
// one.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write fills path with what write writes.
func Write(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.Rename(tmp.Name(), path)
}
