package treceval

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writeBenchFiles writes a qrels and a run shaped like the benchmark data:
// nq queries of nd retrieved documents, about a tenth of them judged.
func writeBenchFiles(b *testing.B, nq, nd int) (qrelsPath, runPath string) {
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
// documents (500,000 run lines).
func BenchmarkAllTrec(b *testing.B) {
	qrels, run := writeBenchFiles(b, 500, 1000)
	st, _ := os.Stat(run)
	b.SetBytes(st.Size())
	for b.Loop() {
		if code := Main([]string{"-m", "all_trec", qrels, run}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit status %d", code)
		}
	}
}
