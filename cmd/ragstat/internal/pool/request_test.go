package pool

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestRequest: Run claims the queue's file before reading, writes the
// queue there (or to stdout, the summary then going to stderr), and
// refuses settings in option terms.
func TestRequest(t *testing.T) {
	dir := t.TempDir()
	run := sharedtest.WriteFile(t, dir, "bm25.txt", "q1 Q0 a 1 2 bm25\nq1 Q0 b 2 1 bm25\n")
	topics := sharedtest.WriteFile(t, dir, "topics.jsonl", `{"id":"q1","text":"refunds"}`+"\n")
	queue := `{"query":"q1","item":"`
	for _, c := range []struct {
		name             string
		req              Request
		file, out, stder string // what the queue's file, stdout and stderr hold
		option, err      string // the option refused, or part of the error
	}{
		{name: "to a file", req: Request{Systems: []string{run}, Depth: 2, Out: "queue.jsonl"},
			file: queue, out: "Pooled 1 systems over 1 queries at depth 2: 2 pairs to judge (0 already judged) -> "},
		{name: "to stdout", req: Request{Systems: []string{"sys=" + run}, Depth: 1, Out: "-"},
			out: queue, stder: "Pooled 1 systems over 1 queries at depth 1: 1 pairs to judge"},
		{name: "over its input", req: Request{Systems: []string{run}, Depth: 2, Out: run}, err: "is the same file as the input"},
		{name: "topics without a corpus", req: Request{Systems: []string{run}, Depth: 2, Topics: topics, Out: "queue.jsonl"}, option: "topics"},
		{name: "unknown run format", req: Request{Systems: []string{run}, RunFormat: "csv", Out: "queue.jsonl"}, option: "run_format"},
		{name: "trace formats refused", req: Request{Systems: []string{run}, Depth: 2, Out: "queue.jsonl",
			Traces: func() ([]systems.TraceReader, error) { return nil, errors.New("bad mapping") }}, err: "bad mapping"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.req.Out != "-" && c.req.Out != run {
				c.req.Out = filepath.Join(t.TempDir(), c.req.Out)
			}
			var stdout, stderr bytes.Buffer
			err := c.req.Run(strings.NewReader(""), &stdout, &stderr)
			var oe *diag.OptionError
			switch {
			case c.option != "":
				if !errors.As(err, &oe) || !strings.Contains(oe.Error(), c.option) {
					t.Fatalf("err %v, want an option error on %s", err, c.option)
				}
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
			case err != nil:
				t.Fatal(err)
			}
			if c.err != "" || c.option != "" {
				if _, serr := os.Stat(c.req.Out); c.req.Out != run && serr == nil {
					t.Errorf("%s written on error", c.req.Out)
				}
				return
			}
			if c.file != "" {
				b, err := os.ReadFile(c.req.Out)
				if err != nil || !strings.HasPrefix(string(b), c.file) {
					t.Errorf("queue file %q, %v; want it to start %q", b, err, c.file)
				}
			}
			if !strings.HasPrefix(stdout.String(), c.out) || !strings.HasPrefix(stderr.String(), c.stder) {
				t.Errorf("stdout %q, stderr %q; want them to start %q, %q", stdout.String(), stderr.String(), c.out, c.stder)
			}
		})
	}
}
