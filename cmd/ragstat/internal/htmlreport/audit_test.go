package htmlreport

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/audit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/auditcmd"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/input"
)

// TestAudit renders the audit of the hand-built set: the summary, the
// reasons, the slices, the resolution and every flag of a query flagged
// four times, self-contained.
func TestAudit(t *testing.T) {
	dir := filepath.Join("..", "audit", "testdata", "flags")
	req := auditcmd.Request{Eval: settings.Eval{MinGrade: 1, Judgments: filepath.Join(dir, "qrels.txt"), Metrics: []string{"nDCG@3", "RR@3"}},
		Topics: filepath.Join(dir, "topics.jsonl"), Corpus: filepath.Join(dir, "corpus.jsonl"), Options: audit.DefaultOptions()}
	rep, _, err := req.Audit(auditcmd.Sources{Files: settings.Files{Open: func(p string) (*input.File, error) { return input.Open(p, nil) }},
		Systems: []string{"a=" + filepath.Join(dir, "a.run"), filepath.Join(dir, "b.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Audit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	checkPage(t, buf.String(), "3 of 13 queries are informative", "<td>k_too_large</td>", "<td>tag:billing</td>",
		"<td>nDCG@3</td><td>a</td><td>b</td>", "<td>multi</td>", "<b>leakage</b>: 1.00 of its 5 content words",
		"<b>ungrounded</b>: 1 relevant passages missing from the corpus: p-gone", "How long is the refund window for returned items?")
}
