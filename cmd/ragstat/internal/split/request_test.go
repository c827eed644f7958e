package split

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestRequest: Run writes the summary and the files into the folder,
// making it; a grouping it cannot read is an option error, and a file
// there is replaced only when forced.
func TestRequest(t *testing.T) {
	dir := t.TempDir()
	topics := sharedtest.WriteFile(t, dir, "topics.jsonl", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n")
	js := sharedtest.WriteFile(t, dir, "j.jsonl", `{"query":"a","item":"x","grade":1}`+"\n")
	taken := filepath.Join(dir, "taken")
	if err := os.MkdirAll(taken, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(taken, Files[0]), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, judgments, groupBy, outDir string
		force                            bool
		written                          []string
		err, flagged                     string
	}{
		{name: "topics", groupBy: "family", outDir: "new/out", written: FilesOf(false)},
		{name: "with judgments", judgments: js, groupBy: "tag:source=", outDir: "out", written: FilesOf(true)},
		{name: "unknown grouping", groupBy: "source", outDir: "out",
			err: `group_by "source": use family`, flagged: `--group-by "source": use family, or tag:PREFIX (e.g. tag:source=)`},
		{name: "a file there", groupBy: "family", outDir: taken, err: "the file exists"},
		{name: "a file there, forced", groupBy: "family", outDir: taken, force: true, written: FilesOf(false)},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := c.outDir
			if !filepath.IsAbs(out) {
				out = filepath.Join(t.TempDir(), out)
			}
			var stdout bytes.Buffer
			err := Request{Topics: topics, Judgments: c.judgments, Grades: "0..3", HeldOut: 0.5, Seed: 1, GroupBy: c.groupBy, OutDir: out, Force: c.force}.
				Run(strings.NewReader(""), &stdout)
			var oe *diag.OptionError
			switch {
			case c.flagged != "":
				if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.err) || flagname.Flagged(err) != c.flagged {
					t.Fatalf("err %v, want an option error %q, flagged %q", err, c.err, c.flagged)
				}
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
			case err != nil:
				t.Fatal(err)
			}
			if c.err != "" {
				if _, err := os.Stat(out); out != taken && err == nil {
					t.Errorf("%s made on error", out)
				}
				return
			}
			if !strings.HasPrefix(stdout.String(), "split: 2 topics, group by "+c.groupBy) {
				t.Errorf("stdout %q", stdout.String())
			}
			for _, name := range c.written {
				if _, err := os.Stat(filepath.Join(out, name)); err != nil || !strings.Contains(stdout.String(), "wrote "+filepath.Join(out, name)+"\n") {
					t.Errorf("%s: %v; stdout %q", name, err, stdout.String())
				}
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestRequestReportError: a summary that cannot be written is an
// outfile.ReportError, and no file is written.
func TestRequestReportError(t *testing.T) {
	dir := t.TempDir()
	topics := sharedtest.WriteFile(t, dir, "topics.jsonl", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n")
	out := filepath.Join(dir, "out")
	err := Request{Topics: topics, Grades: "0..3", HeldOut: 0.5, GroupBy: "family", OutDir: out}.Run(strings.NewReader(""), failingWriter{})
	if _, ok := errors.AsType[*outfile.ReportError](err); !ok || err.Error() != "disk full" {
		t.Fatalf("err %v, want a ReportError", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s left behind", out)
	}
}
