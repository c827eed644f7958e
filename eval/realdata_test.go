package eval

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

// trecSummary reads trec_eval's "measure all value" rows.
func trecSummary(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 3 {
			out[fs[0]] = fs[2]
		}
	}
	return out
}

// TestAgainstTrecEval evaluates real public runs as a user would and
// matches the numbers trec_eval printed for them (see each PROVENANCE.md):
// linear gain, unjudged items non-relevant, run queries only.
func TestAgainstTrecEval(t *testing.T) {
	data := sharedtest.Dir(t, "data")
	cases := []struct{ qrels, run, summary string }{
		{"trec-dl-2019-passage/qrels.dl19-passage.txt", "trec-dl-2019-passage/runs/run.trec2019-bm25.res.gz", "trec-dl-2019-passage/trec_eval_outputs/run.trec2019-bm25.summary"},
	}
	for _, sys := range []string{"bm25", "bm25_bert_zs", "bm25_rm3", "bm25_rm3_bert_zs", "bm25_rm3_t5_zs", "bm25_t5_zs"} {
		cases = append(cases, struct{ qrels, run, summary string }{"dl-hard-passage/dl_hard-passage.qrels",
			"dl-hard-passage/runs/" + sys + ".run.gz", "dl-hard-passage/trec_eval_outputs/" + sys + ".summary"})
	}
	names := map[string]string{"AP": "map", "RR": "recip_rank", "R@100": "recall_100", "nDCG@10": "ndcg_cut_10"}
	ms, _ := metric.ParseAll([]string{"AP", "RR", "R@100", "nDCG@10"})
	for _, c := range cases {
		for suffix, minGrade := range map[string]int{".txt": 1, "l2.txt": 2} {
			p := DefaultPolicy()
			p.Gain, p.Unjudged, p.Queries, p.MinGrade = metric.Linear, UnjudgedNonrelevant, QueriesRun, minGrade
			p.Unanswerable = UnanswerableExclude
			jf, err := input.Open(filepath.Join(data, c.qrels), nil)
			if err != nil {
				t.Fatal(err)
			}
			qrels, err := judgments.Read(jf, judgments.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ev, _ := New(qrels, p, ms, nil)
			rf, _ := input.Open(filepath.Join(data, c.run), nil)
			res, err := ev.Run("r", rf, runs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := trecSummary(t, filepath.Join(data, c.summary+suffix))
			if len(res.Excluded) > 0 {
				// trec_eval averages a query without relevant items in, as
				// zero for the binary metrics; ragstat leaves it out (and its
				// nDCG, which reads grades below the threshold too, is not
				// comparable), so rescale the binary means to compare.
				n := float64(len(res.Rows))
				for i := range res.Mean {
					res.Mean[i] *= n / (n + float64(len(res.Excluded)))
				}
			}
			for i, m := range ms {
				if len(res.Excluded) > 0 && m.Name() == "nDCG@10" {
					continue
				}
				if got := fmt.Sprintf("%6.4f", res.Mean[i]); got != want[names[m.Name()]] {
					t.Errorf("%s min-grade %d %s: %s, trec_eval %s", c.run, minGrade, m.Name(), got, want[names[m.Name()]])
				}
			}
		}
	}
}
