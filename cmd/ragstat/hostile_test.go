package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	// a tokenizer.json splitting with a pattern that backtracks for minutes
	// on 3,001 bytes (with a lookahead or repetition counts Go's regexp
	// refuses, so that it is matched by backtracking), and such a text
	backtracking := func(name, re string) string {
		return write(name, []byte(`{"version": "1.0", "added_tokens": [], "normalizer": null,
 "pre_tokenizer": {"type": "Split", "pattern": {"Regex": `+strconv.Quote(re)+`}, "behavior": "Isolated"},
 "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "!": 2, "aa": 3}, "merges": ["a a"]}}`))
	}
	as := write("as.txt", []byte(strings.Repeat("a", 3000)+"!"))
	long := func(name, unit string, n int) string { return write(name, []byte(strings.Repeat(unit, n/len(unit)))) }
	cases := []struct {
		name    string
		stdin   []byte
		args    []string
		want    string
		ceiling int64         // MiB above what ragstat version takes
		within  time.Duration // if set, a bound on the time that a hang would break
		ok      bool          // it succeeds (exit 0) rather than being refused
	}{
		{"64 MB of blank lines as a run", nil, []string{"eval", "-j", qrels, blank}, "blank line", 256, 0, false},
		{"1 GB of NUL bytes, gzip-compressed, as a run", nil, []string{"eval", "-j", qrels, nuls}, "line longer than", 256, 0, false},
		{"the same as judgments", nil, []string{"eval", "-j", nuls, run}, "", 256, 0, false},
		{"the same to trec-eval", nil, []string{"trec-eval", qrels, nuls}, "line longer than", 256, 0, false},
		{"a 128 MB line as JSON Lines", nil, []string{"eval", "-j", qrels, "--run-format", "jsonl", letters}, "line longer than", 512, 0, false},
		{"a 128 MB line as topics", nil, []string{"baseline", "--corpus", letters, "--topics", letters, "--out", "-"}, "line longer than", 512, 0, false},
		{"a million nested arrays", nil, []string{"eval", "-j", qrels, deep}, "", 256, 0, false},
		{"/dev/zero as a run", nil, []string{"eval", "-j", qrels, "/dev/zero"}, "a device, not a file", 64, 0, false},
		{"standard input over --copy-limit", bytes.Repeat([]byte("q1 Q0 d1 1 1 r\n"), 1<<20), []string{"eval", "--copy-limit", "1MiB", "-j", qrels, "-"}, "more than 1 MiB", 128, 0, false},
		{"hf:/dev/zero as tokenizer", nil, []string{"tokens", "--tokenizer", "hf:/dev/zero", tokenText}, "not a regular file", 64, 0, false},
		{"a grade scale past 32-bit grades", nil, []string{"eval", "--grades", "0..4294967298", "--gain", "linear", "-m", "DCG@10", "-j", qrels, run},
			"4294967298 is beyond -2147483647..2147483647", 64, 0, false},
		{"a Split pattern of overlapping repetitions", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t1.json", `a*a*a*a*a*a*(?=b)`), as}, "took longer than its budget", 64, time.Minute, false},
		{"the same without the lookahead, in linear time", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t0.json", `a*a*a*a*a*a*b`), as}, "", 64, time.Minute, true},
		{"a Split pattern of an overlapping alternation", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t2.json", `(?:a|aa){0,3000}b`), as}, "took longer than its budget", 64, time.Minute, false},
		{"a Split pattern of nested bounded repetitions", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t3.json", `((a{1,60}){1,60}){1,60}b`), as}, "took longer than its budget", 64, time.Minute, false},
		// byte-pair encoding these was quadratic: minutes to hours
		{"2 MB of spaces counted", nil, []string{"tokens", long("spaces.txt", " ", 2<<20)}, "", 256, time.Minute, true},
		{"2 MB of one letter counted", nil, []string{"tokens", long("letters.txt", "a", 2<<20)}, "", 256, time.Minute, true},
		{"2 MB of newlines counted", nil, []string{"tokens", "--tokenizer", "cl100k_base", long("newlines.txt", "\n", 2<<20)}, "", 256, time.Minute, true},
		{"a 400 KB base64 word counted", nil, []string{"tokens", long("base64.txt", "QmFzZTY0IGJsb2I+/w==", 400<<10)}, "", 256, time.Minute, true},
	}
	base := command(t, nil, "version").peakMiB
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := command(t, c.stdin, c.args...)
			switch {
			case c.ok && o.code != exitOK:
				t.Errorf("exit %d, want 0:\n%.2000s", o.code, o.stderr)
			case !c.ok && (o.code != exitInput || !strings.Contains(o.stderr, c.want) || strings.Contains(o.stderr, "panic")):
				t.Errorf("exit %d, want 2 and %q:\n%.2000s", o.code, c.want, o.stderr)
			}
			if c.within > 0 && o.took > c.within {
				t.Errorf("took %v, more than %v", o.took, c.within)
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
