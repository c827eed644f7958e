package tokenscmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/tokenize"
)

func TestCount(t *testing.T) {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	os.WriteFile(a, []byte("hello world"), 0o644)
	forged := filepath.Join(dir, "b\t1\to200k_base\ttotal\n100")
	os.WriteFile(forged, []byte("hello world"), 0o644)
	n := tok.Count("hello world")
	m := tok.Count("from stdin")
	for _, c := range []struct {
		name  string
		paths []string
		lines int
		err   string
	}{
		{"one file, no total", []string{a}, 1, ""},
		{"two, with the total", []string{a, "-"}, 3, ""},
		{"a name with tabs and a line break, quoted", []string{a, forged}, 3, ""},
		{"missing", []string{filepath.Join(dir, "none.txt")}, 0, "none.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			err := Count(&out, tok, c.paths, strings.NewReader("from stdin"))
			if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if c.lines == 0 {
				return
			}
			if len(lines) != c.lines || !strings.HasPrefix(lines[0], strings.Join([]string{strconv.Itoa(n), "o200k_base", a}, "\t")) {
				t.Errorf("wrote %q", out.String())
			}
			if c.lines == 3 && c.paths[1] == "-" && lines[2] != strconv.Itoa(n+m)+"\to200k_base\ttotal" {
				t.Errorf("total line %q", lines[2])
			}
			if len(c.paths) > 1 && c.paths[1] == forged && lines[1] != strconv.Itoa(n)+"\to200k_base\t"+strconv.Quote(forged) {
				t.Errorf("the second line %q", lines[1])
			}
		})
	}
}
