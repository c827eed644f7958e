package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestClaimRefuses(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "qrels.txt")
	os.WriteFile(in, []byte("q 0 d 1\n"), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.txt")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	dotted := filepath.Join(sub, "..", "qrels.txt")
	for _, c := range []struct {
		name, path string
		force      bool
		want       string
	}{
		{"the input itself", in, true, "--out " + in + " is the same file as the input --judgments " + in},
		{"a symbolic link to the input", link, true, "is the same file as the input --judgments"},
		{"a hard link to the input", hard, true, "is the same file as the input --judgments"},
		{"a path through ..", dotted, true, "is the same file as the input --judgments"},
		{"an existing file", filepath.Join(dir, "other"), false, "the file exists (pass force"},
		{"a folder", sub, true, "names a folder"},
		{"a missing folder", filepath.Join(dir, "nope", "x"), true, "does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "other"), []byte("keep"), 0o644)
			s := New(Options{Force: c.force}, Input{"--judgments", in}, Input{"run", "-"})
			err := s.Claim("--out", c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	data, _ := os.ReadFile(in)
	if string(data) != "q 0 d 1\n" {
		t.Errorf("the input changed: %q", data)
	}
}

func TestTwoOutputsOneFile(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{})
	if err := s.Claim("--out", filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	err := s.Claim("--review", filepath.Join(dir, ".", "a"))
	if err == nil || !strings.Contains(err.Error(), "are the same file") {
		t.Errorf("got %v", err)
	}
	// Standard output may be named twice.
	if err := s.Claim("--a", "-"); err != nil {
		t.Error(err)
	}
	if err := s.Claim("--b", "-"); err != nil {
		t.Error(err)
	}
}

func TestCommitWritesWithUsualMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	var stdout bytes.Buffer
	s := New(Options{Stdout: &stdout})
	defer s.Abort()
	for _, p := range []string{path, "-"} {
		if err := s.Claim("--out", p); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(p, write("data\n")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the output exists before Commit: %v", err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
	if stdout.String() != "data\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d files in the folder", len(entries))
	}
}

func TestForceReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	os.WriteFile(path, []byte("old"), 0o600)
	s := New(Options{Force: true})
	if err := s.Claim("--out", path); err != nil {
		t.Fatal(err)
	}
	s.Write(path, write("new"))
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new" {
		t.Errorf("got %q", data)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "made", "deeper")
	s := New(Options{})
	if err := s.Dir(out); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(out, "a"), filepath.Join(out, "b")
	s.Claim("--a", a)
	s.Claim("--b", b)
	if err := s.Write(a, write("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(b, func(io.Writer) error { return errors.New("failed half-way") }); err == nil {
		t.Fatal("the write's error was lost")
	}
	s.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v behind", entries)
	}
}

func TestNonRegularOutputWrittenInPlace(t *testing.T) {
	s := New(Options{})
	if err := s.Claim("--out", os.DevNull); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(os.DevNull, write("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(os.DevNull); err != nil || info.Mode().IsRegular() {
		t.Errorf("%s was replaced: %v %v", os.DevNull, info, err)
	}
}

// TestStart: optional outputs not given are skipped, and a refused one
// leaves nothing claimed.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "run.txt")
	os.WriteFile(in, []byte("q Q0 d 1 1 t\n"), 0o644)
	ins := Inputs("run", in, "-")
	if len(ins) != 2 || ins[0] != (Input{"run", in}) || ins[1] != (Input{"run", "-"}) {
		t.Fatalf("Inputs: %v", ins)
	}
	for _, c := range []struct {
		name string
		outs []Input
		want string
	}{
		{"optional output skipped", []Input{{"--out", filepath.Join(dir, "a")}, {"--review", ""}}, ""},
		{"an input refused", []Input{{"--out", filepath.Join(dir, "a")}, {"--manifest", in}}, "--manifest " + in + " is the same file as the input run " + in},
		{"two outputs one file", []Input{{"--out", filepath.Join(dir, "a")}, {"--manifest", filepath.Join(dir, "a")}}, "are the same file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Start(Options{}, ins, c.outs...)
			if c.want == "" {
				if err != nil || len(s.outputs) != 1 {
					t.Fatalf("err %v, outputs %v", err, s.outputs)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

func TestReportTo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if ReportTo("queue.jsonl", &stdout, &stderr) != &stdout || ReportTo(Stdout, &stdout, &stderr) != &stderr {
		t.Error("the report goes to standard error only when the output is standard output")
	}
}

func TestFinish(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "queue.jsonl")
	s, err := Start(Options{}, nil, Input{"--out", path})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(path, write("done\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "done\n" {
		t.Errorf("%q, %v", b, err)
	}
	s, _ = Start(Options{Force: true}, nil, Input{"--out", path})
	if err := s.Finish(path, func(io.Writer) error { return errors.New("failed") }); err == nil {
		t.Error("a failed write finished")
	}
	s.Abort()
	if b, _ := os.ReadFile(path); string(b) != "done\n" {
		t.Errorf("a failed write replaced the file: %q", b)
	}
}
