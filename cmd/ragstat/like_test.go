package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLikeTrecEval is the command: --like trec_eval and trec_eval's
// names print trec_eval's numbers with no other flag, and say what the
// preset set.
func TestLikeTrecEval(t *testing.T) {
	dl19 := filepath.Join(filepath.Dir(dlHard(t)), "trec-dl-2019-passage")
	out, errOut, code := ragstat(t, "", "eval", "--like", "trec_eval", "-j", filepath.Join(dl19, "qrels.dl19-passage.txt"),
		filepath.Join(dl19, "runs", "run.trec2019-bm25.res.gz"), "-m", "map", "-m", "ndcg_cut.10", "--summary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"0.3766", "0.4973", "# like: trec_eval", "--like trec_eval set: unjudged nonrelevant",
		"# definition ndcg_cut_10 = trec_eval ndcg_cut", "query map    ndcg_cut_10"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// A trec_eval name computes trec_eval's measure whatever --gain says;
// ragstat's name follows --gain, which overrides the preset.
func TestNamesCarryTheirDefinition(t *testing.T) {
	dir := dlHard(t)
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := ragstat(t, "", append([]string{"eval", "-j", filepath.Join(dir, "dl_hard-passage.qrels"),
			filepath.Join(dir, "runs", "bm25.run.gz"), "--summary", "-f", "csv"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		last := lines[len(lines)-1]
		return last[:strings.LastIndex(last, `,"`)] // less the policy column
	}
	if got := run("--like", "trec_eval", "-m", "ndcg_cut.10", "-m", "nDCG@10"); got != "bm25,mean,,0.3037,0.3037" {
		t.Errorf("--like trec_eval: %s, want trec_eval's 0.3037 twice", got)
	}
	if got := run("--like", "trec_eval", "--gain", "exp", "-m", "ndcg_cut.10", "-m", "nDCG@10"); got != "bm25,mean,,0.3037,0.2790" {
		t.Errorf("--gain exp over the preset: %s, want 0.3037 (trec_eval's name) and 0.2790 (ragstat's, exp gain)", got)
	}
	if got := run("--unjudged", "nonrelevant", "--queries", "both", "--unanswerable", "zero", "-m", "ndcg_cut.10"); got != "bm25,mean,,0.3037" {
		t.Errorf("ndcg_cut.10 without a preset: %s, want 0.3037", got)
	}
}

// A scale whose exp gain overflows is refused before anything is read.
func TestExpGainOverflowExit2(t *testing.T) {
	dir := exampleDir(t)
	_, errOut, code := ragstat(t, "", "eval", "-j", filepath.Join(dir, "qrels.jsonl"), filepath.Join(dir, "A.jsonl"), "--grades", "0..2000")
	if code != 2 || !strings.Contains(errOut, "largest usable grade 1000") || !strings.Contains(errOut, "--gain linear") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// Every query excluded: the means are undefined, never 0, in every format.
func TestMeanOverNothing(t *testing.T) {
	qrels, run := qrelsAndRun(t, "q 0 a 0\n", "q Q0 a 1 1 t\n")
	for format, want := range map[string]string{"table": "r   MEAN  -", "json": `"R@10": null`, "csv": "r,mean,,-"} {
		out, errOut, code := ragstat(t, "", "eval", "-j", qrels, run, "--unanswerable", "exclude", "-m", "R@10", "-f", format)
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(errOut, "no query was evaluated") || strings.Contains(out, "NaN") {
			t.Errorf("%s: exit %d, output lacks %q or has NaN:\n%s\n%s", format, code, want, out, errOut)
		}
	}
}

// Under --like ranx, ndcg@k is ranx's (linear gain); without it, ragstat's.
// Under --like ir_measures, Judged@k divides by the list's length.
func TestLikeRanxAndIRMeasures(t *testing.T) {
	qrels, run := qrelsAndRun(t, "q 0 a 1\nq 0 b 3\n", "q Q0 a 1 2 t\nq Q0 b 2 1 t\n")
	eval := func(args ...string) string {
		t.Helper()
		out, errOut, code := ragstat(t, "", append([]string{"eval", "-j", qrels, run, "--summary", "-f", "csv"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out + errOut // the definitions go to stderr beside CSV
	}
	// a (1) at rank 1, b (3) at rank 2: linear (1 + 3/log2 3) / (3 + 1/log2 3) = 0.7967;
	// exp (1 + 7/log2 3) / (7 + 1/log2 3) = 0.7098.
	if out := eval("--like", "ranx", "-m", "ndcg@10"); !strings.Contains(out, "definition ndcg@10 = ranx ndcg") || !strings.Contains(out, "r,mean,,0.7967") {
		t.Errorf("--like ranx:\n%s", out)
	}
	if out := eval("-m", "ndcg@10"); !strings.Contains(out, "nDCG@10") || !strings.Contains(out, "r,mean,,0.7098") {
		t.Errorf("ragstat's nDCG@10:\n%s", out)
	}
	if out := eval("--like", "ir_measures", "-m", "Judged@5"); !strings.Contains(out, "r,mean,,1.0000") || !strings.Contains(out, "min(k, |list|)") {
		t.Errorf("--like ir_measures Judged@5:\n%s", out)
	}
	if out := eval("--like", "ir_measures", "--judged-divisor", "k", "-m", "Judged@5"); !strings.Contains(out, "r,mean,,0.4000") {
		t.Errorf("--judged-divisor k over the preset:\n%s", out)
	}
}

// qrelsAndRun writes a judgments file and a run file (r.txt) and returns
// their paths.
func qrelsAndRun(t *testing.T, qrels, run string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	paths := [2]string{filepath.Join(dir, "q.txt"), filepath.Join(dir, "r.txt")}
	for i, text := range [2]string{qrels, run} {
		if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths[0], paths[1]
}
