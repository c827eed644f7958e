package auditcmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/audit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestRealSets audits TREC DL 2019 (one BM25 run) and DL-HARD (six
// runs) as docs/audit.md reports them, and checks that every query
// flagged by several reasons prints all of them in the table.
func TestRealSets(t *testing.T) {
	for _, c := range []struct {
		dir, qrels, topics string
		runs               []string
		informative        int
		counts             map[string]int
	}{
		{"trec-dl-2019-passage", "qrels.dl19-passage.txt", "DL2019-queries.tsv", []string{"runs/run.trec2019-bm25.res.gz"},
			7, map[string]int{audit.Saturated: 36, audit.NoPositives: 157}},
		{"dl-hard-passage", "dl_hard-passage.qrels", "topics.tsv", []string{"runs/bm25.run.gz", "runs/bm25_bert_zs.run.gz",
			"runs/bm25_rm3.run.gz", "runs/bm25_rm3_bert_zs.run.gz", "runs/bm25_rm3_t5_zs.run.gz", "runs/bm25_t5_zs.run.gz"},
			31, map[string]int{audit.Saturated: 19}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			dir := sharedtest.Dir(t, filepath.Join("data", c.dir))
			var paths []string
			for _, r := range c.runs {
				paths = append(paths, filepath.Join(dir, r))
			}
			req := Request{Eval: settings.Eval{MinGrade: 1, Judgments: filepath.Join(dir, c.qrels), Cutoff: 10, Unjudged: "nonrelevant"},
				Topics: filepath.Join(dir, c.topics), Options: audit.DefaultOptions()}
			rep, _, err := req.Audit(Sources{Files: files(), Systems: paths})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Summary.Informative != c.informative {
				t.Errorf("%d informative, docs/audit.md says %d", rep.Summary.Informative, c.informative)
			}
			for _, n := range rep.Summary.Reasons {
				if n.Queries != c.counts[n.Reason] {
					t.Errorf("%s flags %d, docs/audit.md says %d", n.Reason, n.Queries, c.counts[n.Reason])
				}
			}
			var buf bytes.Buffer
			if err := (audit.Output{Format: "table"}).Write(&buf, rep); err != nil {
				t.Fatal(err)
			}
			table := buf.String()
			for _, q := range rep.Queries {
				if !strings.Contains(table, "  "+q.ID+": "+q.Reasons()+"\n") && !q.Informative() {
					t.Errorf("query %s: its reasons %q are not listed", q.ID, q.Reasons())
				}
				for _, f := range q.Flags {
					if !strings.Contains(table, "    "+f.Reason+": "+f.Detail+"\n") {
						t.Errorf("query %s: its %s flag is not printed", q.ID, f.Reason)
					}
				}
			}
		})
	}
}
