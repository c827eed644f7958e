package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/parquettest"
)

// TestMain lets a test run ragstat as a child process (see command), so
// that its peak memory can be measured alone, and bounded: with
// RAGSTAT_TEST_AS_MIB set the child's address space may grow by that many
// MiB past what it holds at start, so that a runaway allocation is an out
// of memory error of the child, not of the machine.
func TestMain(m *testing.M) {
	if os.Getenv("RAGSTAT_TEST_MAIN") == "1" {
		if mib, err := strconv.ParseUint(os.Getenv("RAGSTAT_TEST_AS_MIB"), 10, 32); err == nil {
			limitAddressSpace(mib << 20)
		}
		os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
	}
	os.Exit(m.Run())
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
	return commandWith(t, bytes.NewReader(stdin), 0, args...)
}

// commandWith runs ragstat in a child process reading stdin (an *os.File
// is handed over as it is), its address space bounded past its start by
// asMiB MiB when that is not 0, and killed after two minutes.
func commandWith(t testing.TB, stdin io.Reader, asMiB int64, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RAGSTAT_TEST_MAIN=1")
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
		t.Fatalf("ragstat %s: still running after 2 minutes", strings.Join(args, " "))
	}
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
	cases := []struct {
		name    string
		stdin   func() io.Reader
		args    []string
		want    string
		ceiling int64 // MiB above what ragstat version takes
		ok      bool  // exit 0, not 2
	}{
		{"64 MB of blank lines as a run", nil, []string{"eval", "-j", qrels, blank}, "blank line", 256, false},
		{"1 GB of NUL bytes, gzip-compressed, as a run", nil, []string{"eval", "-j", qrels, nuls}, "line longer than", 256, false},
		{"the same as judgments", nil, []string{"eval", "-j", nuls, run}, "", 256, false},
		{"the same as JSON Lines judgments", nil, []string{"eval", "--judgments-format", "jsonl", "-j", nuls, run}, "line longer than 1 MiB", 64, false},
		{"the same as a JSON object of judgments", nil, []string{"eval", "--judgments-format", "json", "-j", nuls, run}, "more than 256 MiB once decompressed", 512, false},
		{"the same to trec-eval", nil, []string{"trec-eval", qrels, nuls}, "line longer than", 256, false},
		{"the same to tokens", nil, []string{"tokens", nuls}, "more than 256 MiB once decompressed", 512, false},
		{"a 128 MB line as JSON Lines", nil, []string{"eval", "-j", qrels, "--run-format", "jsonl", letters}, "line longer than 1 MiB", 64, false},
		{"a 128 MB line as topics", nil, []string{"baseline", "--corpus", letters, "--topics", letters, "--out", "-"}, "line longer than", 512, false},
		{"a million nested arrays", nil, []string{"eval", "-j", qrels, deep}, "", 256, false},
		{"Parquet and 512 MB of zeros, gzip-compressed, as a run", nil, []string{"eval", "-j", qrels, pqbomb}, "more than 256 MiB once decompressed", 512, false},
		{"a zstd Parquet page declaring 2^31-1 bytes", nil, []string{"eval", "-j", qrels, pageBytes}, "not a readable Parquet file", 64, false},
		{"a Parquet page declaring 2^31-1 values", nil, []string{"eval", "-j", qrels, pageValues}, "not a readable Parquet file", 64, false},
		{"/dev/zero as a run", nil, []string{"eval", "-j", qrels, "/dev/zero"}, "a device, not a file", 64, false},
		{"/dev/zero as standard input", devZero, []string{"eval", "-j", qrels, "-"}, "standard input is a device", 64, false},
		{"standard input over --copy-limit", func() io.Reader { return bytes.NewReader(bytes.Repeat([]byte("q1 Q0 d1 1 1 r\n"), 1<<20)) },
			[]string{"eval", "--copy-limit", "1MiB", "-j", qrels, "-"}, "more than 1 MiB", 128, false},
		{"an endless pipe as standard input", func() io.Reader { return zeros{} }, []string{"eval", "--copy-limit", "8MiB", "-j", qrels, "-"}, "more than 8 MiB", 128, false},
		{"an endless FIFO as a run", nil, []string{"eval", "--copy-limit", "8MiB", "-j", qrels, fifo}, "more than 8 MiB", 128, false},
		{"hf:/dev/zero as tokenizer", nil, []string{"tokens", "--tokenizer", "hf:/dev/zero", tokenText}, "not a regular file", 64, false},
		{"a tokenizer.json with a key twice", nil, []string{"tokens", "--tokenizer", "hf:" + dupTokenizer, tokenText}, `line 1: key "hello" given twice`, 64, false},
		{"a tokenizer.json with a byte-order mark", nil, []string{"tokens", "--tokenizer", "hf:" + bomTokenizer, tokenText}, "", 64, true},
		{"judgments with a key twice", nil, []string{"eval", "-j", dupJudgments, run}, `dup-qrels.jsonl:1: key "grade" given twice`, 64, false},
		{"a run with a key twice", nil, []string{"eval", "-j", qrels, dupRun}, `dup-run.jsonl:1: key "query" given twice`, 64, false},
		{"topics with a key twice", nil, []string{"baseline", "--corpus", corpus, "--topics", dupTopics, "--out", "-"}, `dup-topics.jsonl:1: key "id" given twice`, 64, false},
		{"a LangSmith run with a key twice", nil, []string{"import", "langsmith", dupLangSmith}, `dup-runs.jsonl:1: key "id" given twice`, 64, false},
		{"an OTLP line with a key twice", nil, []string{"import", "otlp", dupOTLP}, `dup.jsonl:1: key "resourceSpans" given twice`, 64, false},
		{"64 MB of blank lines to import", nil, []string{"import", "otlp", blank}, "not OTLP", 256, false},
		{"a torn last line", nil, []string{"import", "otlp", torn}, "warning: " + torn + ":2: last line incomplete: a writer stopped mid-line; 1 complete lines imported", 64, true},
		{"a torn last line under --strict", nil, []string{"import", "--strict", "otlp", torn}, torn + ":2: last line incomplete", 64, false},
		{"a trace of 30,000 spans in a chain", nil, []string{"import", "otlp", chainFile}, "imported 1 traces", 256, true},
		{"collect --append to a file collect did not write", nil, []string{"collect", "--addr", "127.0.0.1:0", "--grpc-addr", "off", "--append", "--out", notCollected}, "does not start as the lines ragstat collect writes", 64, false},
	}
	base := command(t, nil, "version").peakMiB
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdin io.Reader = bytes.NewReader(nil)
			if c.stdin != nil {
				stdin = c.stdin()
			}
			o := commandWith(t, stdin, 1024, c.args...)
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
// its peak memory in MiB.
func (c *collector) stop(t *testing.T, sig os.Signal) (string, int64) {
	t.Helper()
	c.cmd.Process.Signal(sig)
	for l := range c.rest {
		c.said = append(c.said, l)
	}
	err := c.cmd.Wait()
	if sig != os.Kill && err != nil {
		t.Errorf("collect: %v", err)
	}
	return strings.Join(c.said, "\n"), c.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10
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
	var raw bytes.Buffer
	raw.Write([]byte{0x0a, 0x84, 0xa8, 0xc8, 0x1d, 0x12, 0x80, 0xa8, 0xc8, 0x1d}) // resource_spans{scope_spans{ 62,000,000 bytes
	raw.Write(bytes.Repeat([]byte{0x12, 0}, 31_000_000))                          // of empty spans
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
}
