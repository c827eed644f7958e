// Package scratch removes the temporary files a computation works in, so
// that every caller closes and removes them alike, whatever happened.
package scratch

import "os"

// Remove closes f and removes its file, returning the first error; a nil f
// is nothing to remove.
func Remove(f *os.File) error {
	if f == nil {
		return nil
	}
	err := f.Close()
	if rerr := os.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}
