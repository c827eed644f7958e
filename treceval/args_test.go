package treceval

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tinyFiles writes a small qrels and run.
func tinyFiles(t testing.TB) (qrels, run string) {
	dir := t.TempDir()
	qrels, run = filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	os.WriteFile(qrels, []byte("1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 c 1\n2 0 d -1\n"), 0o644)
	os.WriteFile(run, []byte("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n1 Q0 x 3 0.5 r\n2 Q0 c 1 1 r\n2 Q0 d 2 0 r\n"), 0o644)
	return qrels, run
}

// TestHugeLevel: -l with a huge level finishes at once (bpref once counted
// up to the level for every query).
func TestHugeLevel(t *testing.T) {
	qrels, run := tinyFiles(t)
	var stdout, stderr bytes.Buffer
	start := time.Now()
	if status := Main([]string{"-l", "9223372036854775807", "-m", "bpref", "-m", "infAP", qrels, run}, nil, &stdout, &stderr); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if !strings.Contains(stdout.String(), "bpref                 \tall\t0.0000") {
		t.Errorf("no document is relevant at the largest level, bpref is 0:\n%s", stdout.String())
	}
}

// TestGzipInput: qrels and run may be gzip-compressed, recognised by their
// content as every other command does.
func TestGzipInput(t *testing.T) {
	qrels, run := tinyFiles(t)
	var want, stderr bytes.Buffer
	if Main([]string{"-q", qrels, run}, nil, &want, &stderr) != 0 {
		t.Fatal(stderr.String())
	}
	gz := func(path string) string {
		data, _ := os.ReadFile(path)
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		out := path + ".data" // no .gz: the content decides
		os.WriteFile(out, b.Bytes(), 0o644)
		return out
	}
	var got bytes.Buffer
	if status := Main([]string{"-q", gz(qrels), gz(run)}, nil, &got, &stderr); status != 0 || got.String() != want.String() {
		t.Errorf("status %d, %s\n%s", status, stderr.String(), got.String())
	}
}

// FuzzArgs: no command line makes trec-eval panic or run for long on a
// small input.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{"-q", "-l 2000000000 -m bpref", "-M 0 -m all_trec", "-c -J -n", "-m ndcg.1=3,2=1 -m P.1,2", "-mP.5 -l-3",
		"--level_for_rel=9223372036854775807", "-N 99999999999 -m 11pt_avg", "-m utility.1,-1,0,0 -M 1", "-D 0.1 -m recall.1000000000", "-Z x", "--"} {
		f.Add(s)
	}
	qrels, run := tinyFiles(f)
	f.Fuzz(func(t *testing.T, s string) {
		args := append(strings.Fields(s), qrels, run)
		done := make(chan struct{})
		go func() {
			var stdout, stderr bytes.Buffer
			Main(args, strings.NewReader(""), &stdout, &stderr)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("trec-eval %q runs for more than 5 s", args)
		}
	})
}
