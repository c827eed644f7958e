package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditCommand runs the audit of the library's hand-built set: the
// report goes to stdout, a gate met exits 3 with its line on stderr, a bad
// rule or option exits 2 naming the flag.
func TestAuditCommand(t *testing.T) {
	dir := filepath.Join("internal", "audit", "testdata", "flags")
	args := []string{"audit", "-j", filepath.Join(dir, "qrels.txt"), "--topics", filepath.Join(dir, "topics.jsonl"),
		"--corpus", filepath.Join(dir, "corpus.jsonl"), "-m", "nDCG@3", "-m", "RR@3", "a=" + filepath.Join(dir, "a.run"), filepath.Join(dir, "b.jsonl")}
	for _, c := range []struct {
		extra     []string
		code      int
		out, errs string
	}{
		{nil, 0, "3 of 13 queries are informative", ""},
		{[]string{"-f", "markdown"}, 0, "| multi | leakage, trivial, saturated, ungrounded |", ""},
		{[]string{"-f", "html"}, 0, "<td>multi</td>", ""},
		{[]string{"--fail-on", "informative<5", "--fail-on", "leakage>0.3"}, 3, "Flagged queries:", "gate: informative<5: 3 of 13 queries are informative"},
		{[]string{"--fail-on", "leakage>0.1"}, 3, "", "gate: leakage>0.1: leakage flags 2 of 13 queries (0.1538)"},
		{[]string{"--fail-on", "leaks>1"}, 2, "", "--fail-on \"leaks>1\" names neither informative nor a reason"},
		{[]string{"--max-overlap", "2"}, 2, "", "--max-overlap 2 must lie in (0, 1]"},
	} {
		out, errs, code := ragstat(t, "", append(args, c.extra...)...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errs, c.errs) {
			t.Errorf("%v: exit %d, want %d; stdout has %q: %v; stderr %q, want %q", c.extra, code, c.code, c.out, strings.Contains(out, c.out), errs, c.errs)
		}
	}
}
