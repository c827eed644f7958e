package treceval

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/trecfile"
)

// writeBenchFiles writes a qrels and a run shaped like the benchmark data:
// nq queries of nd retrieved documents, about a tenth of them judged.
func writeBenchFiles(b testing.TB, nq, nd int) (qrelsPath, runPath string) {
	dir := b.TempDir()
	qrelsPath, runPath = filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.txt")
	qf, _ := os.Create(qrelsPath)
	rf, _ := os.Create(runPath)
	qw, rw := bufio.NewWriter(qf), bufio.NewWriter(rf)
	rng := rand.New(rand.NewPCG(1, 1))
	for q := range nq {
		scores := make([]float64, nd)
		for d := range scores {
			scores[d] = 20 * rng.Float64()
		}
		slices.Sort(scores)
		slices.Reverse(scores)
		for d := range nd {
			doc := fmt.Sprintf("msmarco_passage_%02d_%d", d%69, rng.IntN(1e9))
			if d%10 == 0 {
				fmt.Fprintf(qw, "%d 0 %s %d\n", q*7919, doc, rng.IntN(4))
			}
			fmt.Fprintf(rw, "%d Q0 %s %d %.6f bench\n", q*7919, doc, d+1, scores[d])
		}
	}
	for _, w := range []*bufio.Writer{qw, rw} {
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	qf.Close()
	rf.Close()
	return qrelsPath, runPath
}

// BenchmarkAllTrec measures `trec-eval -m all_trec` on 500 queries of 1,000
// documents (500,000 run lines), with the summary only and with -q's
// per-query rows, side by side.
func BenchmarkAllTrec(b *testing.B) {
	qrels, run := writeBenchFiles(b, 500, 1000)
	st, _ := os.Stat(run)
	for _, bc := range []struct {
		name string
		args []string
	}{{"summary", nil}, {"per-query", []string{"-q"}}} {
		b.Run(bc.name, func(b *testing.B) {
			args := append(bc.args, "-m", "all_trec", qrels, run)
			b.SetBytes(st.Size())
			for b.Loop() {
				if code := Main(args, nil, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit status %d", code)
				}
			}
		})
	}
}

// readBench writes the files of writeBenchFiles and reads them as the
// command does given the options args; it returns the evaluation and the
// run's path.
func readBench(tb testing.TB, nq, nd int, args ...string) (*evaluation, string) {
	tb.Helper()
	qrelsPath, runPath := writeBenchFiles(tb, nq, nd)
	c, err := parseArgs(append(args, qrelsPath, runPath))
	if err != nil {
		tb.Fatal(err)
	}
	ins, nvals, err := c.req.instances()
	if err != nil {
		tb.Fatal(err)
	}
	e := &evaluation{cfg: c, ins: ins, nvals: nvals}
	if err := e.read(qrelsPath, runPath, nil); err != nil {
		tb.Fatal(err)
	}
	return e, runPath
}

// BenchmarkScore measures ranking and scoring one query of 1,000 documents
// (100 judged) with every all_trec measure.
func BenchmarkScore(b *testing.B) {
	e, runPath := readBench(b, 1, 1000, "-m", "all_trec")
	var docs []trecfile.RunDoc
	err := trecfile.ReadRun(func() (io.ReadCloser, error) { return os.Open(runPath) }, trecfile.Options{Lenient: true},
		func(q *trecfile.RunQuery) error {
			for _, d := range q.Docs {
				d.Doc = strings.Clone(d.Doc)
				docs = append(docs, d)
			}
			return nil
		})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if res := e.score(docs, e.qrels.queries[0]); res.err != nil {
			b.Fatal(res.err)
		}
	}
}
