package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run ragstat as a child process (see command), so
// that its peak memory can be measured alone.
func TestMain(m *testing.M) {
	if os.Getenv("RAGSTAT_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
	}
	os.Exit(m.Run())
}

// outcome is what a child ragstat did.
type outcome struct {
	code    int
	stderr  string
	peakMiB int64 // the child's peak resident memory
	took    time.Duration
}

// command runs ragstat in a child process with stdin.
func command(t testing.TB, stdin []byte, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RAGSTAT_TEST_MAIN=1")
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	o := outcome{stderr: stderr.String(), took: time.Since(start)}
	if exit, ok := err.(*exec.ExitError); ok {
		o.code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	o.peakMiB = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10
	return o
}

// bomb is a gzip file of n MiB of byte b that is about n KiB compressed:
// one member of 1 MiB, repeated (gzip readers read every member).
func bomb(t testing.TB, path string, b byte, n int) string {
	t.Helper()
	var member bytes.Buffer
	w, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	w.Write(bytes.Repeat([]byte{b}, 1<<20))
	w.Close()
	if err := os.WriteFile(path, bytes.Repeat(member.Bytes(), n), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostileInputs: each input is refused with a clear error (exit 2),
// within a memory ceiling, and none crashes or hangs.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	qrels := write("qrels.txt", []byte("q1 0 d1 1\n"))
	run := write("run.txt", []byte("q1 Q0 d1 1 1 r\n"))
	blank := write("blank.run", bytes.Repeat([]byte{'\n'}, 64<<20))
	nuls := bomb(t, filepath.Join(dir, "nul.gz"), 0, 1024)
	letters := bomb(t, filepath.Join(dir, "letters.gz"), 'a', 128) // past jsonin.MaxLine
	deep := write("deep.jsonl", []byte(`{"query":"q1","items":`+strings.Repeat("[", 1<<20)+"\n"))
	tokenText := write("text.txt", []byte("hello\n"))
	allQrels, allRun := write("all.qrels", []byte("all 0 d1 1\n")), write("all.run", []byte("all Q0 d1 1 1 r\n"))
	// A partial result whose value was edited after it was written.
	part, errs, code := ragstat(t, "", "eval", "-j", qrels, "--shard", "0/1", "-f", "json", run)
	if code != 0 {
		t.Fatalf("eval --shard 0/1: exit %d: %s", code, errs)
	}
	edited := write("edited.json", []byte(part))
	doc := readDoc(t, edited)
	doc["runs"].([]any)[0].(map[string]any)["queries"].([]any)[0].(map[string]any)["metrics"].(map[string]any)["nDCG@10"] = 1e308
	writeDoc(t, edited, doc)
	cases := []struct {
		name    string
		stdin   []byte
		args    []string
		want    string
		ceiling int64 // MiB above what ragstat version takes
	}{
		{"64 MB of blank lines as a run", nil, []string{"eval", "-j", qrels, blank}, "blank line", 256},
		{"1 GB of NUL bytes, gzip-compressed, as a run", nil, []string{"eval", "-j", qrels, nuls}, "line longer than", 256},
		{"the same as judgments", nil, []string{"eval", "-j", nuls, run}, "", 256},
		{"the same to trec-eval", nil, []string{"trec-eval", qrels, nuls}, "line longer than", 256},
		{"a 128 MB line as JSON Lines", nil, []string{"eval", "-j", qrels, "--run-format", "jsonl", letters}, "line longer than", 512},
		{"a 128 MB line as topics", nil, []string{"baseline", "--corpus", letters, "--topics", letters, "--out", "-"}, "line longer than", 512},
		{"a million nested arrays", nil, []string{"eval", "-j", qrels, deep}, "", 256},
		{"/dev/zero as a run", nil, []string{"eval", "-j", qrels, "/dev/zero"}, "a device, not a file", 64},
		{"standard input over --copy-limit", bytes.Repeat([]byte("q1 Q0 d1 1 1 r\n"), 1<<20), []string{"eval", "--copy-limit", "1MiB", "-j", qrels, "-"}, "more than 1 MiB", 128},
		{"hf:/dev/zero as tokenizer", nil, []string{"tokens", "--tokenizer", "hf:/dev/zero", tokenText}, "not a regular file", 64},
		{"a query named all in trec's format", nil, []string{"eval", "-j", allQrels, "--per-query", "-f", "trec", allRun}, `a query is named "all"`, 64},
		{"a partial result edited after it was written", nil, []string{"merge", edited}, "do not match the digest its manifest records", 64},
	}
	base := command(t, nil, "version").peakMiB
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := command(t, c.stdin, c.args...)
			if o.code != exitInput || !strings.Contains(o.stderr, c.want) || strings.Contains(o.stderr, "panic") {
				t.Errorf("exit %d, want 2 and %q:\n%.2000s", o.code, c.want, o.stderr)
			}
			if len(o.stderr) > 16<<10 {
				t.Errorf("%d bytes of messages", len(o.stderr))
			}
			if o.peakMiB-base > c.ceiling {
				t.Errorf("peak memory %d MiB above the %d MiB of ragstat version, ceiling %d MiB", o.peakMiB-base, base, c.ceiling)
			}
			t.Logf("%d MiB above ragstat version's %d MiB, %v", o.peakMiB-base, base, o.took.Round(time.Millisecond))
		})
	}

	// A hostile generator endpoint (loopback): its requests fail, exit 1
	// with the count, in bounded time, the key never printed.
	const key = "sk-hostile-0123"
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/wait/"):
			w.Header().Set("Retry-After", "999999")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case strings.HasPrefix(r.URL.Path, "/redirect/"):
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		default:
			http.Error(w, "rejected "+r.Header.Get("Authorization"), http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	pipeline := filepath.Join(exampleDir(t), "pipeline")
	intervene := func(path string) []string {
		p := func(name string) string { return filepath.Join(pipeline, name) }
		return []string{"intervene", "-j", p("judgments.jsonl"), "--topics", p("topics.jsonl"), "--corpus", p("corpus.jsonl"),
			"--model", "m", "--api-key-env", "HOSTILE_KEY", "--rate-limit", "0", "--timeout", "3s", "--endpoint", srv.URL + path, p("traces-v1.jsonl")}
	}
	t.Setenv("HOSTILE_KEY", key)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"Retry-After: 999999 from the generator", intervene("/wait/v1"), "would end past the time limit of 3s"},
		{"a 307 to another port of the host", intervene("/redirect/v1"), "redirects are not followed"},
		{"the key echoed in a 500", append(intervene("/echo/v1"), "--retries", "0", "-f", "json"), "rejected Bearer REDACTED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], c.args...)
			cmd.Env = append(os.Environ(), "RAGSTAT_TEST_MAIN=1")
			out, err := cmd.CombinedOutput()
			exit, _ := err.(*exec.ExitError)
			if exit == nil || exit.ExitCode() != exitInternal || !strings.Contains(string(out), "requests to the generator failed") ||
				!strings.Contains(string(out), c.want) || strings.Contains(string(out), key) {
				t.Errorf("%v, want exit 1, the count and %q, no key:\n%.3000s", err, c.want, out)
			}
		})
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("%d requests followed a redirect to another port", n)
	}
}

// TestWriteErrors: a command whose standard output fails (/dev/full)
// exits 1 with the reason, every command alike.
func TestWriteErrors(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	dir := exampleDir(t)
	q, a, b := filepath.Join(dir, "qrels.jsonl"), filepath.Join(dir, "A.jsonl"), filepath.Join(dir, "B.jsonl")
	p := func(name string) string { return filepath.Join(dir, "pipeline", name) }
	trecQrels, trecRun := filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.txt")
	os.WriteFile(trecQrels, []byte("refund 0 policy 1\n"), 0o644)
	if err := os.WriteFile(trecRun, []byte("refund Q0 policy 1 1 r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"version"}, {"--version"}, {"--help"}, {"metrics"}, {"demo"},
		{"eval", "-j", q, a}, {"eval", "-j", q, "-f", "json", a}, {"eval", "-j", q, "-f", "trec", a},
		{"trec-eval", trecQrels, trecRun},
		{"compare", "-j", q, a, b}, {"compare", "-j", q, "-f", "html", a, b},
		{"stages", "-j", p("judgments.jsonl"), "--topics", p("topics.jsonl"), "--corpus", p("corpus.jsonl"), p("traces-v1.jsonl")},
		{"tokens", q},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "RAGSTAT_TEST_MAIN=1")
			cmd.Stdout = full
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			exit, _ := err.(*exec.ExitError)
			if exit == nil || exit.ExitCode() != exitInternal || !strings.Contains(stderr.String(), "writing standard output: ") ||
				!strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("%v: %v, want exit 1 and the reason:\n%s", args, err, stderr.String())
			}
			// trec-eval states it in trec_eval's words too.
			if n := strings.Count(stderr.String(), "no space left"); n != 1 && args[0] != "trec-eval" {
				t.Errorf("the reason given %d times:\n%s", n, stderr.String())
			}
		})
	}
	// The same for an output file.
	pipeline := []string{"-j", p("judgments.jsonl"), "--topics", p("topics.jsonl"), "--corpus", p("corpus.jsonl")}
	for _, args := range [][]string{
		{"eval", "-j", q, a, "--per-query-out", "/dev/full"},
		append(append([]string{"stages"}, pipeline...), p("traces-v1.jsonl"), "--per-query-out", "/dev/full"),
		append(append([]string{"intervene"}, pipeline...), "--model", "m", p("traces-v1.jsonl"), "--write-batch", "/dev/full"),
		{"baseline", "--corpus", p("corpus.jsonl"), "--topics", p("topics.jsonl"), "--out", "/dev/full"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			o := command(t, nil, args...)
			if o.code != exitInternal || !strings.Contains(o.stderr, "/dev/full: ") || !strings.Contains(o.stderr, "no space left on device") {
				t.Errorf("%v: exit %d, want 1 and the reason:\n%s", args, o.code, o.stderr)
			}
		})
	}
}

// BenchmarkMillionQueries evaluates a run of a million queries of one item
// each against judgments of every query, and reports the peak memory
// (peak-MiB) of the whole command; it fails above 2 GiB.
func BenchmarkMillionQueries(b *testing.B) {
	dir := b.TempDir()
	var qrels, run bytes.Buffer
	for i := range 1_000_000 {
		fmt.Fprintf(&qrels, "q%d 0 d 1\n", i)
		fmt.Fprintf(&run, "q%d Q0 d 1 1 r\n", i)
	}
	qp, rp := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	os.WriteFile(qp, qrels.Bytes(), 0o644)
	os.WriteFile(rp, run.Bytes(), 0o644)
	var peak int64
	for b.Loop() {
		o := command(b, nil, "eval", "-j", qp, "--summary", rp)
		if o.code != 0 {
			b.Fatalf("exit %d: %s", o.code, o.stderr)
		}
		peak = max(peak, o.peakMiB)
	}
	b.ReportMetric(float64(peak), "peak-MiB")
	if peak > 2048 {
		b.Errorf("peak memory %d MiB, ceiling 2048 MiB", peak)
	}
}
