package main

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestNumericIDs: JSON ids written as numbers (pandas' to_json) are
// refused with the way out named, and read exactly with --numeric-ids.
func TestNumericIDs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return sharedtest.WriteFile(t, dir, name, content) }
	qrels := write("qrels.jsonl", `{"query":7,"item":101,"grade":1}`+"\n"+`{"query":7,"item":102,"grade":0}`+"\n")
	run := write("run.jsonl", `{"query":7,"items":[102,101]}`+"\n")
	_, stderr, code := ragstat(t, "", "eval", "-j", qrels, "-m", "RR", run)
	if code != 2 || !strings.Contains(stderr, `ids must be strings: quote them ("7", not 7), or pass --numeric-ids`) {
		t.Fatalf("without --numeric-ids: exit %d, stderr %q", code, stderr)
	}
	stdout, stderr, code := ragstat(t, "", "eval", "--numeric-ids", "-j", qrels, "-m", "RR", "-f", "tsv", run)
	if code != 0 || !strings.Contains(stdout, "0.5") {
		t.Fatalf("with --numeric-ids: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	partial := write("partial.jsonl", `{"query":7,"item":101,"grade":1}`+"\n")
	if _, _, code := ragstat(t, "", "pool", "--depth", "2", "-j", partial, "-o", "-", run); code != 2 {
		t.Errorf("pool without --numeric-ids: exit %d, want 2", code)
	}
	if stdout, stderr, code := ragstat(t, "", "pool", "--numeric-ids", "--depth", "2", "-j", partial, "-o", "-", run); code != 0 || !strings.Contains(stdout, `"query":"7","item":"102"`) || strings.Contains(stdout, `"101"`) {
		t.Errorf("pool with --numeric-ids: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	fraction := write("fraction.jsonl", `{"query":7,"items":[101.5]}`+"\n")
	if _, stderr, code := ragstat(t, "", "eval", "--numeric-ids", "-j", qrels, fraction); code != 2 || !strings.Contains(stderr, "id 101.5 is a number but not an integer") {
		t.Fatalf("fractional id: exit %d, stderr %q", code, stderr)
	}
}
