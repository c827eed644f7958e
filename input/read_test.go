package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(path, []byte("file\n"), 0o644)
	for _, c := range []struct{ path, stdin, want string }{
		{path, "", "file\n"},
		{"-", "stdin\n", "stdin\n"},
		{filepath.Join(filepath.Dir(path), "missing.txt"), "", "missing.txt"},
	} {
		got, err := Read(c.path, strings.NewReader(c.stdin), func(f *File) (string, error) {
			b, err := f.ReadAll()
			return string(b), err
		})
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("Read(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}
