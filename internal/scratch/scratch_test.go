package scratch

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

func TestRemove(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "scratch-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := Remove(f); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.Name()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file is still there: %v", err)
	}
	if _, err := f.Write([]byte("x")); err == nil {
		t.Error("the file is still open")
	}
	if err := Remove(f); err == nil {
		t.Error("removing twice gave no error")
	}
	if err := Remove(nil); err != nil {
		t.Errorf("nil: %v", err)
	}
}
