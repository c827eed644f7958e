package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrecEvalExitStatus: trec-eval's failures exit 2 (bad input or
// usage), as every command's do, and a gzip run is read by its content.
func TestTrecEvalExitStatus(t *testing.T) {
	dir := t.TempDir()
	qrels, run := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	os.WriteFile(qrels, []byte("1 0 a 1\n1 0 b 0\n"), 0o644)
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n"))
	w.Close()
	os.WriteFile(run, b.Bytes(), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"trec-eval", "-x", qrels, run}, 2, "unknown option '-x'"},
		{[]string{"trec-eval", qrels}, 2, "want 2 files"},
		{[]string{"trec-eval", "-m", "nosuch", qrels, run}, 2, "illegal measure"},
		{[]string{"trec-eval", qrels, filepath.Join(dir, "missing")}, 2, "cannot read run file"},
		{[]string{"trec-eval", "-m", "P.1", qrels, run}, 0, "P_1                   \tall\t1.0000"},
		{[]string{"trec-eval", run, qrels}, 2, "looks like a run (qid Q0 docno rank score tag): did you swap the files?"},
	} {
		stdout, stderr, code := ragstat(t, "", c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%v: exit %d, %s%s", c.args, code, stdout, stderr)
		}
	}
}
