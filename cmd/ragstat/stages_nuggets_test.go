package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStagesNuggetAssignments: --nugget-assignments adds nuggetizer's four
// scores of the answers to the answers' lines (the hand-worked means of
// topics/testdata's two answers); a nugget file given instead is exit 2
// naming the line.
func TestStagesNuggetAssignments(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"j.jsonl": `{"query":"2024-1","item":"a","grade":2}
{"query":"2024-2","item":"b","grade":1}
`,
		"t.jsonl": `{"id":"2024-1"}
{"id":"2024-2"}
`,
		"tr.jsonl": `{"query":"2024-1","system":"s","stages":[{"name":"context","items":[{"id":"a"}]}],"answer":{"text":"x","abstained":false}}
{"query":"2024-2","system":"s","stages":[{"name":"context","items":[{"id":"b"}]}],"answer":{"text":"y","abstained":false}}
`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(assignments string) []string {
		return []string{"stages", "-j", filepath.Join(dir, "j.jsonl"), "--topics", filepath.Join(dir, "t.jsonl"),
			"--nugget-assignments", assignments, filepath.Join(dir, "tr.jsonl")}
	}
	out, errs, code := ragstat(t, "", args("../../topics/testdata/assignments.jsonl")...)
	want := "  nugget scores over 2 answers: strict vital 0.6667, vital 0.7500, strict all 0.4500, all 0.6125\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s", code, errs, out)
	}
	_, errs, code = ragstat(t, "", args("../../topics/testdata/nuggets.jsonl")...)
	if code != 2 || !strings.Contains(errs, `nuggets.jsonl:1: query "2024-1": nugget 1 has no assignment: this is a nugget file`) {
		t.Errorf("nugget file: exit %d, stderr %s", code, errs)
	}
}
