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
	return likeTrecEvalIn(t, sharedtest.Dir(t, "data"), qrelsPath, runPath, minGrade, judgments.DefaultScale, names)
}

func likeTrecEvalIn(t *testing.T, data, qrelsPath, runPath string, minGrade int, scale judgments.Scale, names []string) *Result {
	t.Helper()
	p := DefaultPolicy()
	p.Scale = scale
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
	qrels, err := judgments.Read(jf, judgments.Options{Scale: scale})
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

// trecNames are the trec_eval names ragstat computes, in trec_eval's
// spelling.
var trecNames = []string{"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
	"iprec_at_recall", "P", "recall", "infAP", "11pt_avg", "ndcg", "ndcg_cut", "map_cut", "success",
	"set_P", "set_recall", "set_F", "rbp", "rbp_resid"}

// matchTrecEval compares res with trec_eval's -q output want, query by
// query and in the summary row.
func matchTrecEval(t *testing.T, what string, res *Result, want map[string]map[string]string) {
	t.Helper()
	format := func(m metric.Metric, v float64, perQuery bool) string {
		if m.Count && (perQuery || m.Agg == metric.Sum) {
			return fmt.Sprint(int(v))
		}
		return fmt.Sprintf("%6.4f", v)
	}
	if got := fmt.Sprint(len(res.Rows)); want["num_q"] != nil && got != want["num_q"]["all"] {
		t.Fatalf("%s: %s queries scored, trec_eval num_q %s", what, got, want["num_q"]["all"])
	}
	bad := 0
	for i, m := range res.Metrics {
		w := want[m.Name()]
		if w == nil {
			t.Fatalf("%s: trec_eval printed no %s", what, m.Name())
		}
		if got := format(m, res.Mean[i], false); got != w["all"] {
			t.Errorf("%s %s all: %s, trec_eval %s", what, m.Name(), got, w["all"])
			bad++
		}
		if m.Agg == metric.GeoMean {
			continue // trec_eval prints gm_map's summary only
		}
		for _, row := range res.Rows {
			if got := format(m, row.Values[i], true); got != w[row.Query] && bad < 20 {
				t.Errorf("%s %s query %s: %s, trec_eval %s", what, m.Name(), row.Query, got, w[row.Query])
				bad++
			}
		}
	}
}

// TestTrecNamesOnTrecEvalsOwnTests matches trec_eval's own expected
// outputs (its test directory): all_trec -q, and at -l 2 on graded
// judgments, and its measure-parameter test.
func TestTrecNamesOnTrecEvalsOwnTests(t *testing.T) {
	dir := sharedtest.Dir(t, "conformance")
	dir = filepath.Join(dir, "trec_eval_test")
	res := likeTrecEvalIn(t, dir, "qrels.test", "results.test", 1, judgments.DefaultScale, trecNames)
	matchTrecEval(t, "out.test.aq", res, trecAll(t, filepath.Join(dir, "out.test.aq")))
	res = likeTrecEvalIn(t, dir, "qrels.rel_level", "results.test", 2, judgments.Scale{Min: -1, Max: 4}, trecNames)
	matchTrecEval(t, "out.test.aql", res, trecAll(t, filepath.Join(dir, "out.test.aql")))
	res = likeTrecEvalIn(t, dir, "qrels.test", "results.test", 1, judgments.DefaultScale, []string{"iprec_at_recall.0.10,0.20,0.25,0.75,0.50",
		"P.5,7,3", "recall.20,2000", "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20", "success.2,5,20"})
	matchTrecEval(t, "out.test.meas_params", res, trecAll(t, filepath.Join(dir, "out.test.meas_params")))
}

// TestEveryTrecNameAgainstTrecEval computes every trec_eval name ragstat
// knows on the DL-HARD runs under --like trec_eval and matches trec_eval's
// -q -m all_trec output, query by query and in the summary row.
func TestEveryTrecNameAgainstTrecEval(t *testing.T) {
	data := sharedtest.Dir(t, "data")
	for _, sys := range dlHardSystems {
		res := likeTrecEval(t, "dl-hard-passage/dl_hard-passage.qrels", "dl-hard-passage/runs/"+sys+".run.gz", 1, trecNames)
		matchTrecEval(t, sys, res, trecAll(t, filepath.Join(data, "dl-hard-passage/trec_eval_outputs/"+sys+".trec_eval_all.txt")))
	}
}
