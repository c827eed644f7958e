package treceval

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestMainFailures checks exit statuses (trec_eval's) and that each failure
// explains itself on stderr.
func TestMainFailures(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return sharedtest.WriteFile(t, dir, name, content) }
	qrels := write("qrels", "1 0 a 1\n1 0 b 0\n2 0 c 1\n")
	run := write("run", "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 c 1 1 r\n")
	dupRun := write("dup", "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n1 Q0 a 3 0 r\n2 Q0 c 1 1 r\n")
	dupQrels := write("dupq", "1 0 a 1\n1 0 a 0\n2 0 c 1\n")
	shortRun := write("short", "1 Q0 a 1 2\n")
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string // a part of the message
	}{
		{"unknown measure", []string{"-m", "nosuch", qrels, run}, 1, "illegal measure 'nosuch'"},
		{"empty parameters", []string{"-m", "P.", qrels, run}, 1, "must be followed by parameters"},
		{"unknown option", []string{"-x", qrels, run}, 1, "unknown option '-x'"},
		{"option without value", []string{qrels, run, "-m"}, 1, "needs a value"},
		{"one file", []string{qrels}, 1, "want 2 files"},
		{"negative -M", []string{"-M", "-1", qrels, run}, 1, "cannot be negative"},
		{"zero cutoff", []string{"-m", "P.0", qrels, run}, 2, "cutoffs must be positive"},
		{"duplicate cutoff", []string{"-m", "P.5,5", qrels, run}, 2, "cutoff 5 given twice"},
		{"bad pairs", []string{"-m", "ndcg.1=2,3", qrels, run}, 2, "malformed pair parameters"},
		{"missing run", []string{qrels, missing}, 2, "cannot read run file"},
		{"missing qrels", []string{missing, run}, 2, "cannot read qrels file"},
		{"short run line", []string{qrels, shortRun}, 2, "short:1: query \"1\": found 5 fields"},
		{"prefs format", []string{"-R", "prefs", qrels, run}, 2, "not supported"},
		{"z-scores", []string{"-Z", "z", qrels, run}, 2, "-Z"},
		{"duplicate in run", []string{"-m", "P.5", qrels, dupRun}, 4, "retrieves document \"a\" twice (lines 1 and 3)"},
		{"duplicate in qrels", []string{"-m", "P.5", dupQrels, run}, 4, "judges document \"a\" twice"},
		{"query missing from run", []string{"-m", "P.5", qrels, shortRunOf(t, dir)}, 4, "add -c"},
		{"utility parameters", []string{"-m", "utility.1,2", qrels, run}, 4, "utility needs 4 parameters"},
		{"preference measure", []string{"-m", "prefs_simp", qrels, run}, 4, "not read"},
		{"nothing to evaluate", []string{"-D", "0.9", qrels, run}, 7, "no queries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := Main(tt.args, strings.NewReader(""), &stdout, &stderr)
			if status != tt.status || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("status %d, stderr %q; want %d and %q", status, stderr.String(), tt.status, tt.stderr)
			}
		})
	}
}

// shortRunOf writes a run that lacks judged query 2.
func shortRunOf(t *testing.T, dir string) string {
	return sharedtest.WriteFile(t, dir, "only1", "1 Q0 a 1 2 r\n")
}

// TestMainCommandLine checks getopt's forms: clusters, glued values, long
// options and abbreviations, files before options, stdin as the run.
func TestMainCommandLine(t *testing.T) {
	qrels := filepath.Join("testdata", "edge", "qrels.txt")
	runFile := filepath.Join("testdata", "edge", "run.txt")
	runData, err := os.ReadFile(runFile)
	if err != nil {
		t.Fatal(err)
	}
	want := mainOutput(t, nil, "-q", "-c", "-m", "P.5", "-l", "2", qrels, runFile)
	for _, args := range [][]string{
		{"-qc", "-mP.5", "-l2", qrels, runFile},
		{qrels, "--measure=P.5", "--query_eval_wanted", "-c", runFile, "--level_for_rel", "2"},
		{"--meas", "P.5", "--comp", "-q", "-l", "2", "--", qrels, runFile},
		{"-q", "-c", "-m", "P.5", "-m", "P.10", "-l", "2", qrels, runFile}, // the first parameters win
		{"-q", "-c", "-m", "P.5", "-l", "2", qrels, "-"},
	} {
		if got := mainOutput(t, runData, args...); got != want {
			t.Errorf("%q:\n%s\nwant\n%s", args, got, want)
		}
	}
}

// mainOutput runs Main, fails the test on a non-zero status, and returns
// stdout.
func mainOutput(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if status := Main(args, bytes.NewReader(stdin), &stdout, &stderr); status != 0 {
		t.Fatalf("%q: status %d: %s", args, status, stderr.String())
	}
	return stdout.String()
}

func TestMainHelpAndVersion(t *testing.T) {
	help := mainOutput(t, nil, "-h", "-m", "ndcg_cut")
	if !strings.Contains(help, "usage: trec-eval") || !strings.Contains(help, "ndcg_cut") || strings.Contains(help, "  recip_rank") {
		t.Errorf("help with -m ndcg_cut:\n%s", help)
	}
	for _, m := range registry {
		if m.doc == "" {
			t.Errorf("measure %s has no description", m.name)
		}
	}
	var stdout, stderr bytes.Buffer
	if status := Main([]string{"-v", "-m", "nosuch"}, nil, &stdout, &stderr); status != 0 || !strings.Contains(stderr.String(), "10.0") {
		t.Errorf("-v: status %d, stderr %q", status, stderr.String())
	}
}

func TestAppendFloat(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0.0000"}, {1, "1.0000"}, {0.12345, "0.1235"}, {0.03125, "0.0312"}, {0.09375, "0.0938"},
		{-0.5, "-0.5000"}, {123.45678, "123.4568"}, {math.NaN(), "  -nan"}, {math.Inf(1), "   inf"},
		{math.Inf(-1), "  -inf"}, {math.Copysign(0, -1), "-0.0000"},
	}
	for _, tt := range tests {
		if got := string(appendFloat([]byte("x"), tt.v)); got != "x"+tt.want {
			t.Errorf("appendFloat(%v) = %q, want %q", tt.v, got, "x"+tt.want)
		}
	}
}

// TestWriteQueries checks that -q's rows, formatted in chunks on every
// core, come out in the order one loop writes them, across many chunks.
func TestWriteQueries(t *testing.T) {
	e, _ := readBench(t, 1000, 20, "-q", "-m", "all_trec")
	var qids []string
	for _, j := range e.qrels.queries {
		qids = append(qids, j.qid)
	}
	for _, n := range []int{0, 1, 127, 128, 129, 1000} {
		var got bytes.Buffer
		out := bufio.NewWriter(&got)
		e.writeQueries(out, qids[:n], e.results[:n])
		out.Flush()
		var wantN rowWriter
		for i := range n {
			e.writeQuery(&wantN, qids[i], e.results[i])
		}
		if !bytes.Equal(got.Bytes(), wantN.buf) || n > 0 && len(got.Bytes()) < n*100 {
			t.Errorf("%d queries: %d bytes of rows, %d from one loop, or too few", n, got.Len(), len(wantN.buf))
		}
	}
}
