package remap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestRequest: Run writes the summary and the remapped files; topics go
// with their output, strict withholds the files when there is anything to
// review, and the errors name the settings as options.
func TestRequest(t *testing.T) {
	dir := t.TempDir()
	in := map[string]string{}
	for name, text := range map[string]string{"docs.jsonl": docs, "old.jsonl": oldChunks, "new.jsonl": shifted,
		"clean.jsonl": j("o3", 2), "review.jsonl": j("o2", 1), "topics.jsonl": `{"id":"q"}` + "\n"} {
		in[name] = sharedtest.WriteFile(t, dir, name, text)
	}
	for _, c := range []struct {
		name, judgments, topics string
		out                     Paths // names under a fresh folder
		strict                  bool
		stdout, stderr          string // what they contain
		written                 []string
		err, flagged            string // the error, and as a command line names its options
	}{
		{name: "clean", judgments: "clean.jsonl", out: Paths{Judgments: "j.jsonl"},
			stdout: "wrote 1 judgments to ", written: []string{"j.jsonl"}},
		{name: "review to a file", judgments: "review.jsonl", out: Paths{Judgments: "j.jsonl", Review: "r.jsonl"},
			stdout: "1 review lines to ", written: []string{"j.jsonl", "r.jsonl"}},
		{name: "review to stderr", judgments: "review.jsonl", out: Paths{Judgments: "j.jsonl"},
			stdout: "1 review lines to standard error", stderr: `"item":"o2"`, written: []string{"j.jsonl"}},
		{name: "with topics", judgments: "clean.jsonl", topics: "topics.jsonl", out: Paths{Judgments: "j.jsonl", Topics: "t.jsonl"},
			stdout: "wrote 1 topics to ", written: []string{"j.jsonl", "t.jsonl"}},
		{name: "strict, withheld", judgments: "review.jsonl", out: Paths{Judgments: "j.jsonl", Review: "r.jsonl"}, strict: true,
			written: []string{"r.jsonl"}, err: "1 review lines (strict): check them in ",
			flagged: "1 review lines (--strict): check them in "},
		{name: "topics without their output", judgments: "clean.jsonl", topics: "topics.jsonl", out: Paths{Judgments: "j.jsonl"},
			err: "topics and out_topics go together", flagged: "--topics and --out-topics go together"},
		{name: "output of topics without topics", judgments: "clean.jsonl", out: Paths{Judgments: "j.jsonl", Topics: "t.jsonl"},
			err: "topics and out_topics go together", flagged: "--topics and --out-topics go together"},
	} {
		t.Run(c.name, func(t *testing.T) {
			outDir := t.TempDir()
			for _, p := range []*string{&c.out.Judgments, &c.out.Topics, &c.out.Review} {
				if *p != "" {
					*p = filepath.Join(outDir, *p)
				}
			}
			topics := ""
			if c.topics != "" {
				topics = in[c.topics]
			}
			var stdout, stderr bytes.Buffer
			err := Request{OldChunks: in["old.jsonl"], NewChunks: in["new.jsonl"], Documents: in["docs.jsonl"], Judgments: in[c.judgments],
				Grades: "0..3", Topics: topics, Options: Options{MinOverlap: 0.9, Strict: c.strict}, Out: c.out}.Run(strings.NewReader(""), &stdout, &stderr)
			if c.err != "" {
				var oe *diag.OptionError
				if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.err) || !strings.Contains(flagname.Flagged(err), c.flagged) {
					t.Fatalf("err %v, want an option error with %q, flagged %q", err, c.err, c.flagged)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout.String(), c.stdout) || !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q, %q", stdout.String(), stderr.String(), c.stdout, c.stderr)
			}
			entries, _ := os.ReadDir(outDir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if strings.Join(names, " ") != strings.Join(c.written, " ") {
				t.Errorf("wrote %v, want %v", names, c.written)
			}
		})
	}
}
