package treceval_test

import (
	"os"
	"path/filepath"

	"github.com/ragstat/ragstat/treceval"
)

// trec_eval's own command line, its output byte for byte.
func ExampleMain() {
	dir, err := os.MkdirTemp("", "treceval")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	qrels, run := filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.txt")
	os.WriteFile(qrels, []byte("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"), 0o644)
	os.WriteFile(run, []byte("q1 Q0 b 1 2.0 x\nq1 Q0 a 2 1.0 x\nq2 Q0 c 1 1.0 x\n"), 0o644)
	treceval.Main([]string{"-m", "map", "-m", "recip_rank", qrels, run}, nil, os.Stdout, os.Stderr)
	// Output:
	// map                   	all	0.7500
	// recip_rank            	all	0.7500
}
