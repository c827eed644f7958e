package runs_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/runs"
)

// A TREC run read query by query: each list ranked by score, ties by item
// id descending, as trec_eval ranks them.
func ExampleRead() {
	run := "refund Q0 noise 1 2.5 bm25\nrefund Q0 policy 2 4.0 bm25\nlimits Q0 limit 1 1.0 bm25\n"
	var mu sync.Mutex
	var lines []string
	format, err := runs.Read(input.FromBytes("bm25.run", []byte(run)), runs.Options{}, func(r *runs.Ranking) error {
		mu.Lock() // fn may be called from several goroutines
		defer mu.Unlock()
		lines = append(lines, r.Query+": "+strings.Join(r.Items, " "))
		return nil
	})
	if err != nil {
		panic(err)
	}
	sort.Strings(lines)
	fmt.Println(format)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// trec
	// limits: limit
	// refund: policy noise
}
