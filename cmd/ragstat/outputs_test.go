package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingOverwritten: no command writes over one of its inputs (by
// file identity, through links too), nor over an existing file without
// --force; a refused or failed command leaves every file as it was and
// nothing new behind.
func TestNothingOverwritten(t *testing.T) {
	db := seedDB(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "qrels-link.jsonl")
	if err := os.Symlink(fixture("judgments"), link); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "existing.txt")
	os.WriteFile(existing, []byte("the user's file\n"), 0o644)
	splitTopics := filepath.Join(dir, "dev.topics.jsonl")
	data, _ := os.ReadFile(fixture("topics"))
	os.WriteFile(splitTopics, data, 0o644)
	corpus, topics := judgingFile("corpus.jsonl"), judgingFile("topics.jsonl")
	remap := func(extra ...string) []string {
		return append([]string{"remap", "--old-chunks", fixture("old-chunks"), "--new-chunks", fixture("new-chunks"),
			"--documents", fixture("documents"), "-j", fixture("judgments")}, extra...)
	}
	fresh := func(name string) string { return filepath.Join(t.TempDir(), name) }
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"judge export over its database", []string{"judge", "export", "--db", db, "--assessor", "ann", "--out", db},
			"--out " + db + " is the same file as the input --db " + db},
		{"judge export over a file", []string{"judge", "export", "--db", db, "--assessor", "ann", "--out", existing}, "the file exists (pass --force"},
		{"judge serve with the corpus as database", []string{"judge", "--db", corpus, "--queue", judgingFile("queue.golden"), "--corpus", corpus, "--topics", topics},
			"is the same file as the input --corpus"},
		{"remap --out over the judgments", remap("--out", fixture("judgments")), "is the same file as the input --judgments"},
		{"remap --out through a link", remap("--out", link, "--force"), "is the same file as the input --judgments"},
		{"remap --out over the old chunks", remap("--out", fixture("old-chunks"), "--force"), "is the same file as the input --old-chunks"},
		{"remap --review over --out", remap("--out", fresh("a.jsonl"), "--review", filepath.Join(dir, "r.jsonl"), "--out-topics", filepath.Join(dir, "r.jsonl"), "--topics", fixture("topics")),
			"--review " + filepath.Join(dir, "r.jsonl") + " and --out-topics " + filepath.Join(dir, "r.jsonl") + " are the same file"},
		{"pool over the judgments", []string{"pool", "--judgments", judgingFile("qrels"), "--out", judgingFile("qrels"), "--force", "bm25=" + judgingFile("bm25.golden")},
			"is the same file as the input --judgments"},
		{"pool over a run", []string{"pool", "--out", judgingFile("bm25.golden"), "--force", "bm25=" + judgingFile("bm25.golden")},
			"is the same file as the input input"},
		{"baseline over the topics", []string{"baseline", "--corpus", corpus, "--topics", topics, "--out", topics, "--force"},
			"is the same file as the input --topics"},
		{"baseline over a file", []string{"baseline", "--corpus", corpus, "--topics", topics, "--out", existing}, "the file exists"},
		{"split over its input", []string{"split", "--topics", splitTopics, "--held-out", "0.3", "--out-dir", dir, "--force"},
			"--out-dir " + splitTopics + " is the same file as the input --topics " + splitTopics},
		{"demo over existing files", []string{"demo", "--write", exampleDir(t)}, ".jsonl: the file exists (pass --force"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, dir, db, filepath.Dir(fixture("topics")))
			_, stderr, code := ragstat(t, "", c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, %s\nwant %q", code, stderr, c.want)
			}
			if after := snapshot(t, dir, db, filepath.Dir(fixture("topics"))); after != before {
				t.Error("files changed")
			}
		})
	}
}

// snapshot lists every file under the given paths with its content.
func snapshot(t *testing.T, paths ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, p := range paths {
		filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(path)
				b.WriteString(path + "\n")
				b.Write(data)
			}
			return nil
		})
	}
	return b.String()
}

// TestFailedCommandLeavesNothing: remap fails on --topics after the
// judgments are remapped: no --out, no --review, no temporary file.
func TestFailedCommandLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(t.TempDir(), "topics.jsonl")
	os.WriteFile(bad, []byte(`{"id":"q","text":"t","facts":[{"id":"f","support":[["no-such-chunk"]]}]}`+"\n"), 0o644)
	_, stderr, code := ragstat(t, "", "remap", "--old-chunks", fixture("old-chunks"), "--new-chunks", fixture("new-chunks"),
		"--documents", fixture("documents"), "-j", fixture("judgments"), "--out", filepath.Join(dir, "j.jsonl"),
		"--review", filepath.Join(dir, "review.jsonl"), "--topics", bad, "--out-topics", filepath.Join(dir, "t.jsonl"))
	if code != 2 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed remap left %v", entries)
	}
	// split into a folder it creates: the folder goes too.
	out := filepath.Join(dir, "split", "deeper")
	_, stderr, code = ragstat(t, "", "split", "--topics", fixture("topics"), "--held-out", "0.3", "-j", bad, "--out-dir", out)
	if code != 2 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed split left %v", entries)
	}
}

// TestOutputMode: outputs get the mode a user expects (0644 less the umask),
// not a temporary file's 0600.
func TestOutputMode(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.txt")
	if _, stderr, code := ragstat(t, "", "baseline", "--corpus", judgingFile("corpus.jsonl"), "--topics", judgingFile("topics.jsonl"), "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm()&0o044 == 0 {
		t.Errorf("mode %v: others cannot read the output", info.Mode().Perm())
	}
}
