package pool_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
)

// A pool of depth 2 of one run read from standard input, the queue
// written to standard output and the summary to stderr.
func ExampleRequest() {
	run := strings.NewReader("q1 Q0 a 1 3 bm25\nq1 Q0 b 2 2 bm25\nq1 Q0 c 3 1 bm25\nq2 Q0 a 1 1 bm25\n")
	var summary strings.Builder
	if err := (pool.Request{Systems: []string{"bm25=-"}, Depth: 2, Seed: 1, Out: "-"}).Run(run, os.Stdout, &summary); err != nil {
		fmt.Println(err)
	}
	fmt.Print(strings.SplitAfter(summary.String(), "\n")[0])
	// Output:
	// {"query":"q1","item":"a","systems":["bm25"],"order":1}
	// {"query":"q1","item":"b","systems":["bm25"],"order":2}
	// {"query":"q2","item":"a","systems":["bm25"],"order":3}
	// Pooled 1 systems over 2 queries at depth 2: 3 pairs to judge (0 already judged) -> -
}
