package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// fixture is the path of testdata/dataset.NAME.jsonl.
func fixture(name string) string { return filepath.Join(testdataDir, "dataset."+name+".jsonl") }

// outputs is stdout followed by every named file of dir, with dir itself
// written DIR, for a golden file.
func outputs(t *testing.T, dir, stdout string, names ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(stdout)
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n== " + name + " ==\n")
		b.Write(data)
	}
	return strings.ReplaceAll(b.String(), dir, "DIR")
}

func remapArgs(dir string, extra ...string) []string {
	return append([]string{"remap", "--old-chunks", fixture("old-chunks"), "--new-chunks", fixture("new-chunks"),
		"--documents", fixture("documents"), "-j", fixture("judgments"), "--out", filepath.Join(dir, "judgments.jsonl")}, extra...)
}

func TestRemap(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := ragstat(t, "", remapArgs(dir, "--review", filepath.Join(dir, "review.jsonl"),
		"--topics", fixture("topics"), "--out-topics", filepath.Join(dir, "topics.jsonl"))...)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out = strings.ReplaceAll(out, testdataDir, "testdata")
	golden(t, "dataset.remap.golden", outputs(t, dir, out, "judgments.jsonl", "review.jsonl", "topics.jsonl"))
	f, err := input.Open(filepath.Join(dir, "judgments.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := judgments.Read(f, judgments.Options{}); err != nil {
		t.Errorf("remapped judgments do not read back: %v", err)
	}
	if f, err = input.Open(filepath.Join(dir, "topics.jsonl"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.Read(f); err != nil {
		t.Errorf("remapped topics do not read back: %v", err)
	}
}

// TestRemapReview: without --review the review lines go to standard error,
// and --strict makes them an exit status of 2.
func TestRemapReview(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := ragstat(t, "", remapArgs(dir)...)
	if code != 0 || !strings.Contains(out, "3 review lines to standard error") || strings.Count(errs, `{"query":`) != 3 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	strict := t.TempDir()
	_, errs, code = ragstat(t, "", remapArgs(strict, "--strict")...)
	if code != 2 || !strings.Contains(errs, "ragstat: 3 review lines (--strict): check them in standard error; the remapped files were not written") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
	if entries, _ := os.ReadDir(strict); len(entries) != 0 {
		t.Errorf("--strict failed but left %v", entries)
	}
}

func TestDatasetErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id":"a","doc":"policy","revision":"1","start":0,"end":5,"title":"x"}`+"\n"), 0o644)
	stray := filepath.Join(dir, "stray.jsonl")
	os.WriteFile(stray, []byte(`{"query":"q","item":"gone","grade":1}`+"\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"topics alone", remapArgs(dir, "--topics", fixture("topics")), "--topics and --out-topics go together"},
		{"strict chunk reader", append(remapArgs(dir), "--new-chunks", bad), `bad.jsonl:1: unknown field "title"`},
		{"min-overlap", remapArgs(dir, "--min-overlap", "1.5"), "min-overlap 1.5 must be in (0, 1]"},
		{"unknown judged item", slices.Replace(remapArgs(dir), 8, 9, stray), `stray.jsonl:1: query "q", item "gone": judged item is not in the old chunk file`},
		{"group by", []string{"split", "--topics", fixture("topics"), "--held-out", "0.3", "--group-by", "source", "--out-dir", dir}, "use family, or tag:PREFIX"},
		{"held-out share", []string{"split", "--topics", fixture("topics"), "--held-out", "1", "--out-dir", dir}, "held-out share 1 must be between 0 and 1"},
		{"judged query without topic", []string{"split", "--topics", fixture("topics"), "--held-out", "0.3", "-j", stray, "--out-dir", dir}, `query "q": judged query has no topic`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := ragstat(t, "", tc.args...)
			if code != 2 || !strings.Contains(errs, tc.err) {
				t.Errorf("exit %d, stderr %q, want %q", code, errs, tc.err)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	dir := t.TempDir()
	args := []string{"split", "--topics", fixture("topics"), "--held-out", "0.3", "--seed", "1", "-j", fixture("judgments"), "--out-dir", dir}
	out, errs, code := ragstat(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	files := []string{"dev.topics.jsonl", "held-out.topics.jsonl", "dev.judgments.jsonl", "held-out.judgments.jsonl"}
	got := outputs(t, dir, out, files...)
	golden(t, "dataset.split.golden", got)
	if _, errs, code := ragstat(t, "", args...); code != 2 || !strings.Contains(errs, "dev.topics.jsonl: the file exists (pass --force") {
		t.Errorf("split over its own outputs: exit %d, %s", code, errs)
	}
	if again, _, _ := ragstat(t, "", append(args, "--force")...); outputs(t, dir, again, files...) != got {
		t.Error("the same seed gave a different split")
	}
	out, _, code = ragstat(t, "", "split", "--topics", fixture("topics"), "--held-out", "0.5", "--group-by", "tag:support", "--out-dir", dir, "--force")
	if code != 0 || !strings.Contains(out, "group by tag:support") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
