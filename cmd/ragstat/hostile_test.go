package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/parquettest"
)

// TestMain lets a test run ragstat as a child process (see command), so
// that its peak memory can be measured alone, and bounded: with
// RAGSTAT_TEST_AS_MIB set the child's address space may grow by that many
// MiB past what it holds at start, so that a runaway allocation is an out
// of memory error of the child, not of the machine. With
// RAGSTAT_TEST_PEAK set the child writes its peak resident memory there
// as it ends (the rusage of a child counts its parent's memory at the
// exec).
func TestMain(m *testing.M) {
	if os.Getenv("RAGSTAT_TEST_MAIN") == "1" {
		if mib, err := strconv.ParseUint(os.Getenv("RAGSTAT_TEST_AS_MIB"), 10, 32); err == nil {
			limitAddressSpace(mib << 20)
		}
		code := run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
		if path := os.Getenv("RAGSTAT_TEST_PEAK"); path != "" {
			os.WriteFile(path, []byte(strconv.FormatInt(peakKiB(os.Getpid()), 10)), 0o644)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// peakKiB is the peak resident memory of the running process pid in KiB
// (VmHWM), -1 if unknown.
func peakKiB(pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(status)) {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// limitAddressSpace sets RLIMIT_AS to the process's address space now
// (VmSize) plus extra bytes.
func limitAddressSpace(extra uint64) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		if kb, ok := strings.CutPrefix(line, "VmSize:"); ok {
			n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
			if err == nil {
				lim := n<<10 + extra
				syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
			}
		}
	}
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
	return commandWith(t, bytes.NewReader(stdin), 0, 2*time.Minute, args...)
}

// commandWith runs ragstat in a child process reading stdin (an *os.File
// is handed over as it is), its address space bounded past its start by
// asMiB MiB when that is not 0; a child still running after limit is
// killed, and the test fails.
func commandWith(t testing.TB, stdin io.Reader, asMiB int64, limit time.Duration, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	peak := filepath.Join(t.TempDir(), "peak")
	cmd.Env = append(os.Environ(), "RAGSTAT_TEST_MAIN=1", "RAGSTAT_TEST_PEAK="+peak)
	if asMiB > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("RAGSTAT_TEST_AS_MIB=%d", asMiB))
	}
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	o := outcome{stderr: stderr.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("ragstat %.300s: still running after %v", strings.Join(args, " "), limit)
	}
	if exit, ok := err.(*exec.ExitError); ok {
		o.code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	// A child that died (out of memory) wrote no peak: its rusage, which
	// may count the parent's memory, is the figure left.
	o.peakMiB = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10
	if data, err := os.ReadFile(peak); err == nil {
		if kib, err := strconv.ParseInt(string(data), 10, 64); err == nil && kib >= 0 {
			o.peakMiB = kib >> 10
		}
	}
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
// or read when it holds good records beside the damage (exit 0), within a
// memory ceiling, its address space bounded (a runtime out of memory is a
// failure, not a crash of the test), and none crashes or hangs.
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
	letters := bomb(t, filepath.Join(dir, "letters.gz"), 'a', 128) // past the line limit
	// a line of 1 GiB, a JSON value of 1 GiB: one gzip member at each end
	value := readFile(t, bomb(t, filepath.Join(dir, "value.gz"), 'a', 1024))
	otlpLine := write("line.otlp.jsonl.gz", slices.Concat(gzipOf([]byte(`{"resourceSpans":[{"x":"`)), value, gzipOf([]byte(`"}]}`+"\n"))))
	jsonValue := write("value.json.gz", slices.Concat(gzipOf([]byte(`{"x":"`)), value, gzipOf([]byte(`","run_type":"llm"}`+"\n"))))
	longFirst := write("long-first.jsonl", []byte(`{"query": "q1", "items": ["`+strings.Repeat("d", 2<<20)+`"]}`+"\n"))
	deep := write("deep.jsonl", []byte(`{"query":"q1","items":`+strings.Repeat("[", 1<<20)+"\n"))
	tokenText := write("text.txt", []byte("hello\n"))
	notCollected := write("not-collected.txt", []byte("q1 Q0 d1 1 1 r\nq1 Q0 d2 2 0.5 r"))
	pqbomb := write("pqbomb.parquet.gz", append(gzipOf([]byte("PAR1")), readFile(t, bomb(t, filepath.Join(dir, "zeros.gz"), 0, 512))...))
	bombs, err := parquettest.Bombs()
	if err != nil {
		t.Fatal(err)
	}
	pageBytes := write("page-bytes.parquet", bombs["bytes"])
	pageValues := write("page-values.parquet", bombs["values"])
	span := func(id, parent int, kind, extra string) string {
		p := ""
		if parent > 0 {
			p = fmt.Sprintf(`"parentSpanId":"%016x",`, parent)
		}
		return fmt.Sprintf(`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"%016x",%s"name":"s","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"%s"}}%s]}`,
			id, p, id, 1e9-id, kind, extra)
	}
	request := func(spans []string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + "]}]}]}\n"
	}
	var chain strings.Builder
	for i := 1; i <= 30_000; i += 1000 {
		var spans []string
		for j := i; j < i+1000; j++ {
			spans = append(spans, span(j, j-1, "CHAIN", ""))
		}
		chain.WriteString(request(spans))
	}
	chain.WriteString(request([]string{span(30_001, 30_000, "RETRIEVER", `,{"key":"retrieval.documents.0.document.id","value":{"stringValue":"d1"}}`)}))
	chainFile := write("chain.jsonl", []byte(chain.String()))
	good := request([]string{span(1, 0, "CHAIN", `,{"key":"session.id","value":{"stringValue":"q1"}}`),
		span(2, 1, "RETRIEVER", `,{"key":"retrieval.documents.0.document.id","value":{"stringValue":"d1"}}`)})
	torn := write("torn.jsonl", []byte(good+good[:len(good)/2]))
	topics := write("topics.jsonl", []byte(`{"id":"q1","text":"refunds"}`+"\n"))
	dupOTLP := write("dup.jsonl", []byte(`{"resourceSpans":[],"resourceSpans":[]}`+"\n"))
	dupJudgments := write("dup-qrels.jsonl", []byte(`{"query":"q1","item":"d1","grade":1,"grade":2}`+"\n"))
	dupRun := write("dup-run.jsonl", []byte(`{"query":"q1","query":"q2","items":["d1"]}`+"\n"))
	dupTopics := write("dup-topics.jsonl", []byte(`{"id":"q1","id":"q2","text":"x"}`+"\n"))
	corpus := write("corpus.jsonl", []byte(`{"id":"d1","text":"x"}`+"\n"))
	dupLangSmith := write("dup-runs.jsonl", []byte(`{"id":"r","id":"s","run_type":"llm"}`+"\n"))
	tokenizer := `{"model":{"type":"WordPiece","vocab":{"hello":0,"[UNK]":1},"unk_token":"[UNK]"},"pre_tokenizer":{"type":"WhitespaceSplit"}}`
	bomTokenizer := write("bom.json", []byte("\ufeff"+tokenizer))
	dupTokenizer := write("dup.json", []byte(strings.Replace(tokenizer, `"hello":0,`, `"hello":0,"hello":1,`, 1)))
	fifo := filepath.Join(dir, "zeros.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() { // an endless writer: it stops once the reader is gone
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			io.Copy(w, zeros{})
			w.Close()
		}
	}()
	devZero := func() io.Reader {
		f, err := os.Open("/dev/zero")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
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
	// a tokenizer.json splitting with a pattern that backtracks for minutes
	// on 3,001 bytes (with a lookahead or repetition counts Go's regexp
	// refuses, so that it is matched by backtracking), and such a text
	backtracking := func(name, re string) string {
		return write(name, []byte(`{"version": "1.0", "added_tokens": [], "normalizer": null,
 "pre_tokenizer": {"type": "Split", "pattern": {"Regex": `+strconv.Quote(re)+`}, "behavior": "Isolated"},
 "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "!": 2, "aa": 3}, "merges": ["a a"]}}`))
	}
	as := write("as.txt", []byte(strings.Repeat("a", 3000)+"!"))
	var contextTraces, topicLines strings.Builder
	for i := range 200 {
		fmt.Fprintf(&contextTraces, `{"query":"q%d","system":"s","stages":[{"name":"context","text":"%s!","items":[]}]}`+"\n", i, strings.Repeat("a", 3000))
		fmt.Fprintf(&topicLines, `{"id":"q%d","text":"x"}`+"\n", i)
	}
	contexts, manyTopics := write("contexts.jsonl", []byte(contextTraces.String())), write("topics200.jsonl", []byte(topicLines.String()))
	long := func(name, unit string, n int) string { return write(name, []byte(strings.Repeat(unit, n/len(unit)))) }
	const sec = time.Second
	cases := []struct {
		name    string
		stdin   func() io.Reader
		args    []string
		want    string
		ceiling int64         // MiB above what ragstat version takes
		limit   time.Duration // killed past it: a hang, or a quadratic path
		ok      bool          // exit 0, not 2
	}{
		{"64 MB of blank lines as a run", nil, []string{"eval", "-j", qrels, blank}, "blank line", 32, 20 * sec, false},
		{"1 GB of NUL bytes, gzip-compressed, as a run", nil, []string{"eval", "-j", qrels, nuls}, "line longer than", 32, 20 * sec, false},
		{"the same as judgments", nil, []string{"eval", "-j", nuls, run}, "", 32, 20 * sec, false},
		{"the same as JSON Lines judgments", nil, []string{"eval", "--judgments-format", "jsonl", "-j", nuls, run}, "line longer than 1 MiB", 32, 20 * sec, false},
		{"the same as a JSON object of judgments", nil, []string{"eval", "--judgments-format", "json", "-j", nuls, run}, "more than 256 MiB once decompressed", 320, 20 * sec, false},
		{"the same to trec-eval", nil, []string{"trec-eval", qrels, nuls}, "line longer than", 32, 20 * sec, false},
		{"the same to tokens", nil, []string{"tokens", nuls}, "more than 256 MiB once decompressed", 320, 20 * sec, false},
		{"a 128 MB line as JSON Lines", nil, []string{"eval", "-j", qrels, "--run-format", "jsonl", letters}, "line longer than 1 MiB: not JSON Lines (binary or compressed data?) (raise --max-line if such lines are meant)", 32, 20 * sec, false},
		{"a JSON Lines run whose first line is past the line limit", nil, []string{"eval", "-j", qrels, longFirst}, "long-first.jsonl:1: line longer than 1 MiB: not JSON Lines", 32, 20 * sec, false},
		{"a 128 MB line as topics", nil, []string{"baseline", "--corpus", letters, "--topics", letters, "--out", "-"}, "line longer than", 160, 20 * sec, false},
		{"a 1 GB line of OTLP/JSON, gzip-compressed, to import", nil, []string{"import", "otlp", otlpLine}, "line longer than 256 MiB", 640, 30 * sec, false},
		{"a LangSmith run past a 1 GB value, gzip-compressed, as traces", nil, []string{"stages", "-j", qrels, "--topics", topics, jsonValue}, "line longer than 256 MiB", 448, 20 * sec, false},
		{"a million nested arrays", nil, []string{"eval", "-j", qrels, deep}, "", 32, 20 * sec, false},
		{"Parquet and 512 MB of zeros, gzip-compressed, as a run", nil, []string{"eval", "-j", qrels, pqbomb}, "more than 256 MiB once decompressed: a file read whole is held in memory, up to the read limit (raise --max-read if", 320, 20 * sec, false},
		{"a zstd Parquet page declaring 2^31-1 bytes", nil, []string{"eval", "-j", qrels, pageBytes}, "not a readable Parquet file", 32, 20 * sec, false},
		{"a Parquet page declaring 2^31-1 values", nil, []string{"eval", "-j", qrels, pageValues}, "not a readable Parquet file", 32, 20 * sec, false},
		{"/dev/zero as a run", nil, []string{"eval", "-j", qrels, "/dev/zero"}, "a device, not a file", 32, 20 * sec, false},
		{"/dev/zero as standard input", devZero, []string{"eval", "-j", qrels, "-"}, "standard input is a device", 32, 20 * sec, false},
		{"standard input over --copy-limit", func() io.Reader { return bytes.NewReader(bytes.Repeat([]byte("q1 Q0 d1 1 1 r\n"), 1<<20)) },
			[]string{"eval", "--copy-limit", "1MiB", "-j", qrels, "-"}, "more than 1 MiB", 32, 20 * sec, false},
		{"an endless pipe as standard input", func() io.Reader { return zeros{} }, []string{"eval", "--copy-limit", "8MiB", "-j", qrels, "-"}, "more than 8 MiB", 32, 20 * sec, false},
		{"an endless FIFO as a run", nil, []string{"eval", "--copy-limit", "8MiB", "-j", qrels, fifo}, "more than 8 MiB", 32, 20 * sec, false},
		{"hf:/dev/zero as tokenizer", nil, []string{"tokens", "--tokenizer", "hf:/dev/zero", tokenText}, "not a regular file", 32, 20 * sec, false},
		{"a tokenizer.json with a key twice", nil, []string{"tokens", "--tokenizer", "hf:" + dupTokenizer, tokenText}, `line 1: key "hello" given twice`, 32, 20 * sec, false},
		{"a tokenizer.json with a byte-order mark", nil, []string{"tokens", "--tokenizer", "hf:" + bomTokenizer, tokenText}, "", 32, 20 * sec, true},
		{"judgments with a key twice", nil, []string{"eval", "-j", dupJudgments, run}, `dup-qrels.jsonl:1: key "grade" given twice`, 32, 20 * sec, false},
		{"a run with a key twice", nil, []string{"eval", "-j", qrels, dupRun}, `dup-run.jsonl:1: key "query" given twice`, 32, 20 * sec, false},
		{"topics with a key twice", nil, []string{"baseline", "--corpus", corpus, "--topics", dupTopics, "--out", "-"}, `dup-topics.jsonl:1: key "id" given twice`, 32, 20 * sec, false},
		{"a LangSmith run with a key twice", nil, []string{"import", "langsmith", dupLangSmith}, `dup-runs.jsonl:1: key "id" given twice`, 32, 20 * sec, false},
		{"an OTLP line with a key twice", nil, []string{"import", "otlp", dupOTLP}, `dup.jsonl:1: key "resourceSpans" given twice`, 32, 20 * sec, false},
		{"64 MB of blank lines to import", nil, []string{"import", "otlp", blank}, "not OTLP", 192, 20 * sec, false},
		{"a torn last line", nil, []string{"import", "otlp", torn}, "warning: " + torn + ":2: last line incomplete: a writer stopped mid-line; 1 complete lines imported", 32, 20 * sec, true},
		{"a torn last line under --strict", nil, []string{"import", "--strict", "otlp", torn}, torn + ":2: last line incomplete", 32, 20 * sec, false},
		{"a torn last line to stages under --strict", nil, []string{"stages", "--strict", "-j", qrels, "--topics", topics, torn}, torn + ":2: last line incomplete", 32, 20 * sec, false},
		{"a trace of 30,000 spans in a chain", nil, []string{"import", "otlp", chainFile}, "imported 1 traces", 128, 20 * sec, true},
		{"a query named all in trec's format", nil, []string{"eval", "-j", allQrels, "--per-query", "-f", "trec", allRun}, `a query is named "all"`, 32, 20 * sec, false},
		{"a partial result edited after it was written", nil, []string{"merge", edited}, "do not match the digest its manifest records", 32, 20 * sec, false},
		{"collect --append to a file collect did not write", nil, []string{"collect", "--addr", "127.0.0.1:0", "--grpc-addr", "off", "--append", "--out", notCollected}, "does not start as the lines ragstat collect writes", 32, 20 * sec, false},
		{"a grade scale past 32-bit grades", nil, []string{"eval", "--grades", "0..4294967298", "--gain", "linear", "-m", "DCG@10", "-j", qrels, run},
			"4294967298 is beyond -2147483647..2147483647", 32, 20 * sec, false},
		{"a Split pattern of overlapping repetitions", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t1.json", `a*a*a*a*a*a*(?=b)`), as}, "took longer than its budget", 32, 20 * sec, false},
		{"the same without the lookahead, in linear time", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t0.json", `a*a*a*a*a*a*b`), as}, "", 32, 20 * sec, true},
		{"a Split pattern of an overlapping alternation", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t2.json", `(?:a|aa){0,3000}b`), as}, "took longer than its budget", 32, 20 * sec, false},
		{"a Split pattern of nested bounded repetitions", nil, []string{"tokens", "--tokenizer", "hf:" + backtracking("t3.json", `((a{1,60}){1,60}){1,60}b`), as}, "took longer than its budget", 32, 20 * sec, false},
		// each context once past the budget took it again: over a minute for these 200
		{"the same pattern over 200 traces' contexts", nil, []string{"stages", "-j", qrels, "--topics", manyTopics, "--tokenizer", "hf:" + backtracking("t4.json", `(?:a|aa){0,3000}b`), contexts},
			"took longer than its budget", 64, 20 * sec, false},
		// byte-pair encoding these was quadratic: minutes to hours
		{"2 MB of spaces counted", nil, []string{"tokens", long("spaces.txt", " ", 2<<20)}, "", 160, 30 * sec, true},
		{"2 MB of one letter counted", nil, []string{"tokens", long("letters.txt", "a", 2<<20)}, "", 160, 30 * sec, true},
		{"2 MB of newlines counted", nil, []string{"tokens", "--tokenizer", "cl100k_base", long("newlines.txt", "\n", 2<<20)}, "", 160, 30 * sec, true},
		{"a 400 KB base64 word counted", nil, []string{"tokens", long("base64.txt", "QmFzZTY0IGJsb2I+/w==", 400<<10)}, "", 96, 30 * sec, true},
	}
	base := command(t, nil, "version").peakMiB
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdin io.Reader = bytes.NewReader(nil)
			if c.stdin != nil {
				stdin = c.stdin()
			}
			o := commandWith(t, stdin, 1024, c.limit, c.args...)
			want := exitInput
			if c.ok {
				want = exitOK
			}
			if o.code != want || !strings.Contains(o.stderr, c.want) || strings.Contains(o.stderr, "panic") || strings.Contains(o.stderr, "fatal error") {
				t.Errorf("exit %d, want %d and %q:\n%.2000s", o.code, want, c.want, o.stderr)
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

	if b, _ := os.ReadFile(notCollected); string(b) != "q1 Q0 d1 1 1 r\nq1 Q0 d2 2 0.5 r" {
		t.Errorf("collect --append changed a file it did not write: %q", b)
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
		t.Skipf("skipped: %s needs /dev/full", t.Name())
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
		{"import", "otlp", "../../traceimport/testdata/llamaindex-openllmetry.otlp.jsonl", "--out", "/dev/full"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			o := command(t, nil, args...)
			if o.code != exitInternal || !strings.Contains(o.stderr, "/dev/full: ") || !strings.Contains(o.stderr, "no space left on device") {
				t.Errorf("%v: exit %d, want 1 and the reason:\n%s", args, o.code, o.stderr)
			}
			if strings.Contains(o.stderr, "imported ") {
				t.Errorf("%v: a summary of what was not written:\n%s", args, o.stderr)
			}
		})
	}
}

// zeros is an endless stream of NUL bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func gzipOf(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
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

var collectEndpoint = regexp.MustCompile(`OTEL_EXPORTER_OTLP_ENDPOINT=(http://\S+)`)

// collector is a ragstat collect child process.
type collector struct {
	cmd  *exec.Cmd
	url  string
	said []string // what it wrote to standard error until it served
	rest chan string
}

// startCollect starts ragstat collect with args and waits until it serves.
func startCollect(t *testing.T, args ...string) *collector {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"collect", "--addr", "127.0.0.1:0", "--grpc-addr", "off"}, args...)...)
	cmd.Env = append(os.Environ(), "RAGSTAT_TEST_MAIN=1")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := &collector{cmd: cmd, rest: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			c.rest <- sc.Text()
		}
		close(c.rest)
	}()
	for c.url == "" {
		select {
		case l, ok := <-c.rest:
			if !ok {
				t.Fatalf("collect stopped: %q", c.said)
			}
			c.said = append(c.said, l)
			if m := collectEndpoint.FindStringSubmatch(l); m != nil {
				c.url = m[1]
			}
		case <-time.After(30 * time.Second):
			t.Fatal("collect did not start")
		}
	}
	return c
}

// stop signals the collector, waits for it and returns all it said and
// its peak memory in MiB, read just before the signal.
func (c *collector) stop(t *testing.T, sig os.Signal) (string, int64) {
	t.Helper()
	peak := peakKiB(c.cmd.Process.Pid)
	c.cmd.Process.Signal(sig)
	for l := range c.rest {
		c.said = append(c.said, l)
	}
	err := c.cmd.Wait()
	if sig != os.Kill && err != nil {
		t.Errorf("collect: %v", err)
	}
	if peak < 0 { // no /proc: the rusage, which may count the parent's memory at the exec
		peak = c.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}
	return strings.Join(c.said, "\n"), peak >> 10
}

// post sends an OTLP/HTTP export and returns the status and answer.
func (c *collector) post(client *http.Client, ctype, encoding string, body []byte) (int, string) {
	req, _ := http.NewRequest("POST", c.url+"/v1/traces", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(msg)
}

// otlpBomb is a 62 MB OTLP protobuf export of 31 million empty spans,
// gzip-compressed to about 60 KB.
func otlpBomb() []byte {
	spans := bytes.Repeat([]byte{0x12, 0}, 31_000_000) // field 2 of a ScopeSpans, empty
	scope := append(binary.AppendUvarint([]byte{0x12}, uint64(len(spans))), spans...)
	raw := bytes.NewBuffer(binary.AppendUvarint([]byte{0x0a}, uint64(len(scope)))) // resource_spans{scope_spans{spans...}}
	raw.Write(scope)
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zw.Write(raw.Bytes())
	zw.Close()
	return bomb.Bytes()
}

// TestHostileCollect: ragstat collect under decompression bombs (a 62 MB
// export of 31 million empty spans, gzip-compressed) arriving together is
// refused with 413 each, within a memory ceiling, logs the refusal once,
// and goes on serving valid exports.
func TestHostileCollect(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a receiver process")
	}
	bomb := otlpBomb()
	base := command(t, nil, "version").peakMiB
	out := filepath.Join(t.TempDir(), "spans.otlp.jsonl")
	c := startCollect(t, "--out", out)
	client := &http.Client{Timeout: 60 * time.Second}
	start := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if code, msg := c.post(client, "application/x-protobuf", "gzip", bomb); code != 413 || !strings.Contains(msg, "--max-body-mib") {
				t.Errorf("a bomb was answered %d %q", code, msg)
			}
		})
	}
	wg.Wait()
	t.Logf("8 bombs of %d bytes refused in %v", len(bomb), time.Since(start).Round(time.Millisecond))
	if code, msg := c.post(client, "application/json", "", []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"ok"}]}]}]}`)); code != 200 {
		t.Errorf("a valid export was answered %d %q", code, msg)
	}
	said, peak := c.stop(t, os.Interrupt)
	if strings.Count(said, "refused a request (too large)") != 1 || !strings.Contains(said, "1 requests (1 spans) written to "+out+", 8 refused (8 too large)") {
		t.Errorf("collect said:\n%s", said)
	}
	if peak-base > 256 {
		t.Errorf("peak memory %d MiB above ragstat version, ceiling 256 MiB", peak-base)
	}
	t.Logf("peak memory %d MiB, %d MiB above ragstat version", peak, peak-base)

	// Where the body limit lets it through whole, the bomb is refused by
	// its count of spans, before it is decoded.
	c = startCollect(t, "--out", "-", "--max-body-mib", "64")
	if code, msg := c.post(client, "application/x-protobuf", "gzip", bomb); code != 413 || !strings.Contains(msg, "more than 100000 spans in one request (--max-spans)") {
		t.Errorf("a bomb under --max-body-mib 64 was answered %d %q", code, msg)
	}
	if _, peak := c.stop(t, os.Interrupt); peak-base > 256 {
		t.Errorf("peak memory %d MiB above ragstat version under --max-body-mib 64, ceiling 256 MiB", peak-base)
	}
}
