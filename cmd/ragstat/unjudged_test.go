package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestUnjudgedTotals: on DL19's BM25 run the strict default exits 2 with
// twenty problems in detail, then the totals and the flags that accept
// them (the totals themselves are checked against the files in eval).
func TestUnjudgedTotals(t *testing.T) {
	dir := sharedtest.Dir(t, "data/trec-dl-2019-passage")
	_, stderr, code := ragstat(t, "", "eval", "-j", filepath.Join(dir, "qrels.dl19-passage.txt"), filepath.Join(dir, "runs", "run.trec2019-bm25.res.gz"))
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || len(lines) != 22 {
		t.Fatalf("exit %d, %d lines of stderr; want 2, 22:\n%s", code, len(lines), stderr)
	}
	total := regexp.MustCompile(`^in all: ([0-9,]+) returned items in 43 queries have no judgment \(judge them, or accept them with --unjudged nonrelevant\|skip\|bounds, or --like trec_eval\)$`)
	if !total.MatchString(lines[21]) || !strings.HasPrefix(lines[20], "... and ") {
		t.Errorf("the summary reads:\n%s\n%s", lines[20], lines[21])
	}
}
