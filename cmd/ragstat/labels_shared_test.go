package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/internal/longtest"
	"github.com/ragstat/ragstat/runs"
)

// sharedLoop is one pass of the loop over DL-HARD: its outcome against the
// full qrels.
type sharedLoop struct {
	removed, asked, audited int
	kappa                   float64
	// held counts, by metric, the eval intervals (six runs) and the
	// differences' intervals (five candidates against BM25) that hold the
	// full-qrels value, of those made; widths add up the PPI++ and
	// audit-alone interval widths of nDCG@10.
	held, made, diffHeld, diffMade map[string]int
	ppiWidth, auditWidth           float64
	missed                         []string
	filledErr, ppiErr              float64 // nDCG@10: mean |LLM-filled − truth|, |PPI++ − truth|
}

// add adds o's counts to l's.
func (l *sharedLoop) add(o sharedLoop) {
	l.removed += o.removed
	l.asked += o.asked
	l.audited += o.audited
	l.kappa += o.kappa
	for _, m := range []struct{ to, from map[string]int }{{l.held, o.held}, {l.made, o.made}, {l.diffHeld, o.diffHeld}, {l.diffMade, o.diffMade}} {
		for k, v := range m.from {
			m.to[k] += v
		}
	}
	l.ppiWidth += o.ppiWidth
	l.auditWidth += o.auditWidth
	l.filledErr += o.filledErr
	l.ppiErr += o.ppiErr
}

func newSharedLoop() sharedLoop {
	return sharedLoop{held: map[string]int{}, made: map[string]int{}, diffHeld: map[string]int{}, diffMade: map[string]int{}}
}

// coverage says, metric by metric, how many intervals held the value.
func coverage(held, made map[string]int) string {
	var parts []string
	all, n := 0, 0
	for _, m := range []string{"R@10", "RR@10", "nDCG@10"} {
		parts = append(parts, fmt.Sprintf("%s %d of %d", m, held[m], made[m]))
		all += held[m]
		n += made[m]
	}
	return fmt.Sprintf("%d of %d (%.1f%%; %s)", all, n, 100*float64(all)/float64(n), strings.Join(parts, ", "))
}

// TestSharedDataLoop runs the whole loop on DL-HARD (50 queries, six runs):
// half the judged pairs of the runs' top 10 removed as holes, a stand-in
// judge that gives the removed grade with probability 0.8 (another grade
// otherwise) fills them, queries are audited with the true grades, and
// eval and compare under --labels ppi are checked against the means under
// the full qrels. The default run makes one pass (seed 1): every nDCG@10
// interval and every nDCG@10 difference's interval holds the full-qrels
// value. The long suite makes 40 passes with audits of 20 and of 30
// queries and checks the coverage of all the intervals; its figures are in
// docs/judging.md.
func TestSharedDataLoop(t *testing.T) {
	dir := dlHard(t)
	passes := longtest.Pick(1, 40)
	for _, audit := range longtest.Pick([]int{20}, []int{20, 30}) {
		total := newSharedLoop()
		for seed := 1; seed <= passes; seed++ {
			l := runSharedLoop(t, dir, uint64(seed), audit)
			if passes == 1 && (l.held["nDCG@10"] != 6 || l.diffHeld["nDCG@10"] != 5) {
				t.Errorf("seed %d: %d of 6 nDCG@10 intervals and %d of 5 nDCG@10 differences' intervals hold the full-qrels value: %v",
					seed, l.held["nDCG@10"], l.diffHeld["nDCG@10"], l.missed)
			}
			total.add(l)
		}
		n := float64(passes)
		t.Logf("DL-HARD, audit of %d queries, %d passes: %.0f judgments removed and %.0f pairs asked a pass; %.1f audited queries; weighted kappa %.3f",
			audit, passes, float64(total.removed)/n, float64(total.asked)/n, float64(total.audited)/n, total.kappa/n)
		t.Logf("eval intervals holding the full-qrels mean: %s", coverage(total.held, total.made))
		t.Logf("differences' intervals holding the full-qrels difference: %s", coverage(total.diffHeld, total.diffMade))
		t.Logf("nDCG@10: mean interval width PPI++ %.4f, audit alone %.4f; mean error LLM-filled %.4f, PPI++ %.4f",
			total.ppiWidth/(6*n), total.auditWidth/(6*n), total.filledErr/(6*n), total.ppiErr/(6*n))
		if passes == 1 {
			continue
		}
		held, made := 0, 0
		for m, v := range total.made {
			held, made = held+total.held[m], made+v
		}
		if r := float64(held) / float64(made); r < 0.9 {
			t.Errorf("audit of %d: the eval intervals held the full-qrels mean %.1f%% of the time, below 90%%", audit, 100*r)
		}
		if total.ppiWidth >= total.auditWidth {
			t.Errorf("audit of %d: PPI++ intervals (mean width %.4f) no narrower than the audit alone's (%.4f)", audit, total.ppiWidth/(6*n), total.auditWidth/(6*n))
		}
	}
}

// runSharedLoop makes one pass of the loop with seed, auditing audit
// queries.
func runSharedLoop(t *testing.T, data string, seed uint64, audit int) sharedLoop {
	t.Helper()
	work := t.TempDir()
	qrelsPath := filepath.Join(data, "dl_hard-passage.qrels")
	truth := map[pair]int{}
	var lines []string
	f, err := os.Open(qrelsPath)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		g, _ := strconv.Atoi(fs[3])
		truth[pair{fs[0], fs[2]}] = g
		lines = append(lines, sc.Text())
	}
	f.Close()
	systemNames := []string{"bm25", "bm25_bert_zs", "bm25_rm3", "bm25_rm3_bert_zs", "bm25_rm3_t5_zs", "bm25_t5_zs"}
	var runArgs []string
	for _, s := range systemNames {
		runArgs = append(runArgs, s+"="+filepath.Join(data, "runs", s+".run.gz"))
	}
	// The runs' top 10, ranked as ragstat ranks them.
	ins, err := systems.Open(runArgs, nil, systems.Options{Accept: []systems.Kind{systems.Run}})
	if err != nil {
		t.Fatal(err)
	}
	rankings, err := pool.Read(ins, "", runs.Options{})
	systems.Close(ins)
	if err != nil {
		t.Fatal(err)
	}
	inPool := map[pair]bool{}
	for _, r := range rankings {
		for _, it := range r.Items[:min(10, len(r.Items))] {
			inPool[pair{r.Query, it}] = true
		}
	}
	// Half the judged pairs of the pool removed, by a seeded coin.
	rng := rand.New(rand.NewPCG(seed, 2019))
	var kept strings.Builder
	l := newSharedLoop()
	for _, line := range lines {
		fs := strings.Fields(line)
		if inPool[pair{fs[0], fs[2]}] && rng.IntN(2) == 0 {
			l.removed++
			continue
		}
		kept.WriteString(line + "\n")
	}
	var corpus strings.Builder
	items := map[string]bool{}
	for p := range inPool {
		items[p[1]] = true
	}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range items {
			if !yield(id) {
				return
			}
		}
	}) {
		fmt.Fprintf(&corpus, `{"id":%q,"text":"passage %s"}`+"\n", id, id)
	}
	path := func(name string) string { return filepath.Join(work, name) }
	os.WriteFile(path("holes.qrels"), []byte(kept.String()), 0o644)
	os.WriteFile(path("corpus.jsonl"), []byte(corpus.String()), 0o644)
	topicsPath := filepath.Join(data, "topics.tsv")

	// The stand-in judge: the full qrels' grade (0 for a pair they lack,
	// as the unjudged policy nonrelevant reads it), right 80% of the time.
	judge := &standIn{queries: map[string]string{}, items: map[string]string{}, agree: 0.8, seed: seed, grades: 4,
		truth: func(p pair) int { return truth[p] }}
	tf, err := os.ReadFile(topicsPath)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(tf)) {
		id, text, _ := strings.Cut(strings.TrimRight(line, "\n"), "\t")
		judge.queries[text] = id
	}
	for id := range items {
		judge.items["passage "+id] = id
	}
	srv := newServer(t, judge)
	t.Setenv("OPENAI_API_KEY", "")
	fill := append([]string{"judge", "fill", "-j", path("holes.qrels"), "--topics", topicsPath, "--corpus", path("corpus.jsonl"),
		"--endpoint", srv, "--model", "stand-in", "--depth", "10", "--rate-limit", "0", "--concurrency", "16",
		"--out", path("filled.jsonl"), "--audit", strconv.Itoa(audit), "--seed", strconv.FormatUint(seed, 10), "--audit-queue", path("queue.jsonl")}, runArgs...)
	if _, stderr, code := ragstat(t, "", fill...); code != 0 {
		t.Fatalf("judge fill: exit %d: %s", code, stderr)
	}
	l.asked = int(judge.hits.Load())
	// People grade the audit queue: the full qrels' grades.
	writeExport(t, path("queue.jsonl"), path("export.jsonl"), func(p pair) int { return truth[p] })

	policy := []string{"-k", "10", "--unjudged", "nonrelevant", "--unanswerable", "zero", "-f", "json"}
	full := evalMeans(t, append(append([]string{"eval", "-j", qrelsPath}, policy...), runArgs...))
	out, stderr, code := ragstat(t, "", append(append([]string{"eval", "-j", path("filled.jsonl"), "-j", path("export.jsonl"), "--labels", "ppi"}, policy...), runArgs...)...)
	if code != 0 {
		t.Fatalf("eval --labels ppi: exit %d: %s", code, stderr)
	}
	var doc struct {
		PPI []struct {
			Run     string `json:"run"`
			Audited int    `json:"audited"`
			Metrics []struct {
				Metric          string
				Mean, Low, High float64
				Filled          float64 `json:"llm_filled_mean"`
				AuditLow        float64 `json:"audit_low"`
				AuditHigh       float64 `json:"audit_high"`
			} `json:"metrics"`
		} `json:"ppi"`
		Agreement struct {
			Kappa float64 `json:"weighted_kappa"`
		} `json:"agreement"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	l.kappa = doc.Agreement.Kappa
	for _, r := range doc.PPI {
		l.audited = r.Audited
		for _, m := range r.Metrics {
			want := full[r.Run][m.Metric]
			l.made[m.Metric]++
			if m.Low <= want && want <= m.High {
				l.held[m.Metric]++
			} else {
				l.missed = append(l.missed, fmt.Sprintf("%s %s %.4f not in [%.4f, %.4f]", r.Run, m.Metric, want, m.Low, m.High))
			}
			if m.Metric == "nDCG@10" {
				l.ppiWidth += m.High - m.Low
				l.auditWidth += m.AuditHigh - m.AuditLow
				l.filledErr += abs(m.Filled - want)
				l.ppiErr += abs(m.Mean - want)
			}
		}
	}
	// compare: BM25 against the five others; each difference's interval
	// against the full qrels' difference.
	out, stderr, code = ragstat(t, "", append(append([]string{"compare", "-j", path("filled.jsonl"), "-j", path("export.jsonl"), "--labels", "ppi",
		"--resamples", "200", "--randomizations", "200"}, policy...), runArgs...)...)
	if code != 0 {
		t.Fatalf("compare --labels ppi: exit %d: %s", code, stderr)
	}
	var cmp struct {
		PPI []struct {
			Candidate, Metric, Slice string
			Low, High                float64
		} `json:"ppi"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	for _, d := range cmp.PPI {
		if d.Slice != "" {
			continue
		}
		want := full[d.Candidate][d.Metric] - full["bm25"][d.Metric]
		l.diffMade[d.Metric]++
		if d.Low <= want && want <= d.High {
			l.diffHeld[d.Metric]++
		} else {
			l.missed = append(l.missed, fmt.Sprintf("%s−bm25 %s %.4f not in [%.4f, %.4f]", d.Candidate, d.Metric, want, d.Low, d.High))
		}
	}
	return l
}

// evalMeans runs an eval -f json and returns each run's means by metric.
func evalMeans(t *testing.T, args []string) map[string]map[string]float64 {
	t.Helper()
	out, stderr, code := ragstat(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args[:3], code, stderr)
	}
	var doc struct {
		Runs []struct {
			Name string             `json:"name"`
			Mean map[string]float64 `json:"mean"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	means := map[string]map[string]float64{}
	for _, r := range doc.Runs {
		means[r.Name] = r.Mean
	}
	return means
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
