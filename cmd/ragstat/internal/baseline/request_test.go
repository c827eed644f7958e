package baseline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestRequest: Run writes the run to its file (or to stdout, the summary
// then going to stderr), hands the warnings to notes, and never writes
// over an input or, unforced, an existing file.
func TestRequest(t *testing.T) {
	dir := t.TempDir()
	corpus := sharedtest.WriteFile(t, dir, "corpus.jsonl", `{"id":"policy","text":"Refunds are issued within 30 days."}`+"\n"+`{"id":"image"}`+"\n")
	topics := sharedtest.WriteFile(t, dir, "topics.jsonl", `{"id":"refund","text":"refunds"}`+"\n"+`{"id":"stop","text":"the and of"}`+"\n")
	existing := sharedtest.WriteFile(t, dir, "existing.txt", "")
	const summary = "BM25 over 1 passages (1 without text left out), 2 queries, top 5 -> "
	for _, c := range []struct {
		name, out      string
		force          bool
		stdout, stderr string // how they start
		run, note, err string // how the run's file and the one note start; part of the error
	}{
		{name: "to a file", out: filepath.Join(dir, "run.txt"), stdout: summary, run: "refund Q0 policy 1 ",
			note: "warning: 1 queries matched no passage and are absent from the run: stop"},
		{name: "to stdout", out: "-", stdout: "refund Q0 policy 1 ", stderr: summary + "-\n",
			note: "warning: 1 queries matched no passage"},
		{name: "over an input", out: topics, err: "is the same file as the input --topics"},
		{name: "existing, unforced", out: existing, err: "the file exists"},
		{name: "existing, forced", out: existing, force: true, stdout: summary, run: "refund Q0 policy 1 ", note: "warning:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			var notes []string
			err := Request{Corpus: corpus, Topics: topics, K: 5, Tag: "bm25", Out: c.out, Force: c.force}.
				Run(strings.NewReader(""), &stdout, &stderr, func(l ...string) { notes = append(notes, l...) })
			if sharedtest.WantErr(t, err, c.err) {
				if len(notes) > 0 {
					t.Fatalf("notes %q beside the error", notes)
				}
				return
			}
			if !strings.HasPrefix(stdout.String(), c.stdout) || !strings.HasPrefix(stderr.String(), c.stderr) {
				t.Errorf("stdout %q, stderr %q; want them to start %q, %q", stdout.String(), stderr.String(), c.stdout, c.stderr)
			}
			if c.run != "" {
				if b, err := os.ReadFile(c.out); err != nil || !strings.HasPrefix(string(b), c.run) {
					t.Errorf("run %q, %v; want it to start %q", b, err, c.run)
				}
			}
			if len(notes) != 1 || !strings.HasPrefix(notes[0], c.note) {
				t.Errorf("notes %q, want one starting %q", notes, c.note)
			}
		})
	}
}
