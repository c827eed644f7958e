package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTornLastLine: every command that reads JSON Lines skips a last line
// that a writer left cut short, with a warning naming the file and line,
// and under --strict stops on it (exit 2).
func TestTornLastLine(t *testing.T) {
	dir := exampleDir(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	// torn is a copy of the file at path, under the same name, with half
	// its first line added at the end without a newline.
	torn := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		copied := filepath.Join(t.TempDir(), filepath.Base(path))
		if err := os.WriteFile(copied, []byte(string(data)+first[:len(first)/2]), 0o644); err != nil {
			t.Fatal(err)
		}
		return copied
	}
	pipeline := func(judgments, topics, corpus string) []string {
		return []string{"-j", judgments, "--topics", topics, "--corpus", corpus}
	}
	j, tp, c, tr := p("pipeline/judgments.jsonl"), p("pipeline/topics.jsonl"), p("pipeline/corpus.jsonl"), p("pipeline/traces-v1.jsonl")
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		name string
		args []string
		file string // the torn file's name
	}{
		{"eval's judgments", []string{"eval", "-j", torn(p("qrels.jsonl")), p("A.jsonl")}, "qrels.jsonl"},
		{"eval's run", []string{"eval", "-j", p("qrels.jsonl"), torn(p("A.jsonl"))}, "A.jsonl"},
		{"compare's candidate", []string{"compare", "-j", p("qrels.jsonl"), p("A.jsonl"), torn(p("B.jsonl"))}, "B.jsonl"},
		{"stages' traces", append(append([]string{"stages"}, pipeline(j, tp, c)...), torn(p("pipeline/traces-v1.jsonl"))), "traces-v1.jsonl"},
		{"stages' topics", append(append([]string{"stages"}, pipeline(j, torn(p("pipeline/topics.jsonl")), c)...), tr), "topics.jsonl"},
		{"stages' corpus", append(append([]string{"stages"}, pipeline(j, tp, torn(p("pipeline/corpus.jsonl")))...), tr), "corpus.jsonl"},
		{"stages' judgments", append(append([]string{"stages"}, pipeline(torn(p("pipeline/judgments.jsonl")), tp, c)...), tr), "judgments.jsonl"},
		{"pool's run", []string{"pool", "--force", "-o", out, torn(p("A.jsonl"))}, "A.jsonl"},
		{"baseline's corpus", []string{"baseline", "--force", "--corpus", torn(p("pipeline/corpus.jsonl")), "--topics", tp, "--out", out}, "corpus.jsonl"},
		{"split's topics", []string{"split", "--force", "--topics", torn(p("pipeline/topics.jsonl")), "--held-out", "0.5", "--out-dir", t.TempDir()}, "topics.jsonl"},
		{"remap's chunks", []string{"remap", "--force", "--old-chunks", fixture("old-chunks"), "--new-chunks", torn(fixture("new-chunks")),
			"--documents", fixture("documents"), "-j", fixture("judgments"), "--out", out, "--review", filepath.Join(t.TempDir(), "review")}, "new-chunks.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := ragstat(t, "", c.args...)
			if code != 0 || !strings.Contains(errs, "warning: ") || !strings.Contains(errs, c.file+":") ||
				!strings.Contains(errs, ": last line incomplete: a writer stopped mid-line; ") {
				t.Errorf("exit %d, want 0 and the warning:\n%s", code, errs)
			}
			_, errs, code = ragstat(t, "", append([]string{c.args[0], "--strict"}, c.args[1:]...)...)
			if code != exitInput || !strings.Contains(errs, c.file+":") || !strings.Contains(errs, ": last line incomplete: a writer stopped mid-line; ") {
				t.Errorf("under --strict: exit %d, want 2 and the error:\n%s", code, errs)
			}
		})
	}
}
