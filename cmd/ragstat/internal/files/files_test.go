package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

func TestOpenAll(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	os.WriteFile(a, []byte("a\n"), 0o644)
	fs, err := OpenAll([]string{a, "-"}, strings.NewReader("b\n"))
	if err != nil || len(fs) != 2 || fs[0].Name != a || fs[1].Name != "-" {
		t.Fatalf("OpenAll: %v, %v", fs, err)
	}
	for _, f := range fs {
		f.Close()
	}
	if _, err := OpenAll([]string{a, filepath.Join(dir, "missing.txt")}, nil); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("missing file: %v", err)
	}
}

func TestBatchStopsAtTheFirstError(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("good\n"), 0o644)
	missing := filepath.Join(dir, "missing.txt")
	text := func(f *input.File) (string, error) { b, err := f.ReadAll(); return string(b), err }
	for _, c := range []struct {
		name  string
		paths []string
		want  []string
		err   string
	}{
		{"all read", []string{good, "-"}, []string{"good\n", "stdin\n"}, ""},
		{"empty path skipped", []string{"", good}, []string{"", "good\n"}, ""},
		{"later files not read", []string{missing, good}, []string{"", ""}, "missing.txt"},
	} {
		b := &Batch{Stdin: strings.NewReader("stdin\n")}
		var got []string
		for _, p := range c.paths {
			got = append(got, ReadIn(b, p, text))
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || (b.Err == nil) != (c.err == "") ||
			(b.Err != nil && !strings.Contains(b.Err.Error(), c.err)) {
			t.Errorf("%s: got %q, %v; want %q, %q", c.name, got, b.Err, c.want, c.err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "512MiB": 512 << 20, "32GiB": 32 << 30, "10g": 10 << 30, "4K": 4096, "2TB": 2 << 40} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "1.5G", "9999999999T", "G"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}
