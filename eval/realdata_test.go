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

// trecAll reads trec_eval's "measure qid value" rows, keyed by measure
// then qid ("all" for the summary).
func trecAll(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 3 {
			if out[fs[0]] == nil {
				out[fs[0]] = map[string]string{}
			}
			out[fs[0]][fs[1]] = fs[2]
		}
	}
	return out
}

// likeTrecEval evaluates a run of ../shared/data as `--like trec_eval`
// does, with the metrics named.
func likeTrecEval(t *testing.T, qrelsPath, runPath string, minGrade int, names []string) *Result {
	t.Helper()
	data := sharedtest.Dir(t, "data")
	p := DefaultPolicy()
	if _, err := p.SetLike("trec_eval"); err != nil {
		t.Fatal(err)
	}
	p.MinGrade = minGrade
	ms, err := metric.ParseAll(names)
	if err != nil {
		t.Fatal(err)
	}
	jf, err := input.Open(filepath.Join(data, qrelsPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := judgments.Read(jf, judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := New(qrels, p, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := input.Open(filepath.Join(data, runPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ev.Run("r", rf, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var dlHardSystems = []string{"bm25", "bm25_bert_zs", "bm25_rm3", "bm25_rm3_bert_zs", "bm25_rm3_t5_zs", "bm25_t5_zs"}

// TestAgainstTrecEval evaluates real public runs under --like trec_eval and
// matches the numbers trec_eval printed for them (see each PROVENANCE.md),
// at -l 1 and -l 2, with no other setting.
func TestAgainstTrecEval(t *testing.T) {
	data := sharedtest.Dir(t, "data")
	cases := []struct{ qrels, run, summary string }{
		{"trec-dl-2019-passage/qrels.dl19-passage.txt", "trec-dl-2019-passage/runs/run.trec2019-bm25.res.gz", "trec-dl-2019-passage/trec_eval_outputs/run.trec2019-bm25.summary"},
	}
	for _, sys := range dlHardSystems {
		cases = append(cases, struct{ qrels, run, summary string }{"dl-hard-passage/dl_hard-passage.qrels",
			"dl-hard-passage/runs/" + sys + ".run.gz", "dl-hard-passage/trec_eval_outputs/" + sys + ".summary"})
	}
	names := []string{"map", "recip_rank", "recall.100", "ndcg_cut.10"}
	for _, c := range cases {
		for suffix, minGrade := range map[string]int{".txt": 1, "l2.txt": 2} {
			res := likeTrecEval(t, c.qrels, c.run, minGrade, names)
			want := trecSummary(t, filepath.Join(data, c.summary+suffix))
			for i, m := range res.Metrics {
				if got := fmt.Sprintf("%6.4f", res.Mean[i]); got != want[m.Name()] {
					t.Errorf("%s min-grade %d %s: %s, trec_eval %s", c.run, minGrade, m.Name(), got, want[m.Name()])
				}
			}
		}
	}
	// The upstream-published numbers of the DL19 BM25 run.
	res := likeTrecEval(t, cases[0].qrels, cases[0].run, 1, []string{"map", "ndcg_cut.10"})
	if got := fmt.Sprintf("%.4f %.4f", res.Mean[0], res.Mean[1]); got != "0.3766 0.4973" {
		t.Errorf("DL19 BM25 map, ndcg_cut_10 = %s, published 0.3766 0.4973", got)
	}
}

// TestEveryTrecNameAgainstTrecEval computes every trec_eval name ragstat
// knows on the DL-HARD runs under --like trec_eval and matches trec_eval's
// -q -m all_trec output, query by query and in the summary row.
func TestEveryTrecNameAgainstTrecEval(t *testing.T) {
	data := sharedtest.Dir(t, "data")
	names := []string{"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
		"iprec_at_recall", "P", "recall", "infAP", "11pt_avg", "ndcg", "ndcg_cut", "map_cut", "success",
		"set_P", "set_recall", "set_F", "rbp", "rbp_resid"}
	for _, sys := range dlHardSystems {
		res := likeTrecEval(t, "dl-hard-passage/dl_hard-passage.qrels", "dl-hard-passage/runs/"+sys+".run.gz", 1, names)
		want := trecAll(t, filepath.Join(data, "dl-hard-passage/trec_eval_outputs/"+sys+".trec_eval_all.txt"))
		format := func(m metric.Metric, v float64, perQuery bool) string {
			if m.Count && (perQuery || m.Agg == metric.Sum) {
				return fmt.Sprint(int(v))
			}
			return fmt.Sprintf("%6.4f", v)
		}
		if got := fmt.Sprint(len(res.Rows)); got != want["num_q"]["all"] {
			t.Fatalf("%s: %s queries scored, trec_eval num_q %s", sys, got, want["num_q"]["all"])
		}
		bad := 0
		for i, m := range res.Metrics {
			w := want[m.Name()]
			if w == nil {
				t.Fatalf("%s: trec_eval printed no %s", sys, m.Name())
			}
			if got := format(m, res.Mean[i], false); got != w["all"] {
				t.Errorf("%s %s all: %s, trec_eval %s", sys, m.Name(), got, w["all"])
				bad++
			}
			if m.Agg == metric.GeoMean {
				continue // trec_eval prints gm_map's summary only
			}
			for _, row := range res.Rows {
				if got := format(m, row.Values[i], true); got != w[row.Query] && bad < 20 {
					t.Errorf("%s %s query %s: %s, trec_eval %s", sys, m.Name(), row.Query, got, w[row.Query])
					bad++
				}
			}
		}
	}
}
