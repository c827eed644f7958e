package baseline_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/baseline"
)

// A baseline run from a corpus on standard input and a topics file, to
// standard output; the line saying what was ranked goes to stderr.
func ExampleRequest() {
	dir, err := os.MkdirTemp("", "baseline")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	topics := filepath.Join(dir, "topics.jsonl")
	if err := os.WriteFile(topics, []byte(`{"id":"refund","text":"how long does a refund take"}`+"\n"+`{"id":"stop","text":"the and of"}`+"\n"), 0o644); err != nil {
		panic(err)
	}
	corpus := strings.NewReader(`{"id":"policy","text":"Refunds are issued within 30 days."}` + "\n" +
		`{"id":"faq","text":"A refund takes a week to reach your card."}` + "\n" + `{"id":"hours","text":"The shop opens at nine."}` + "\n")
	notes := func(lines ...string) {
		for _, l := range lines {
			fmt.Println("note:", l)
		}
	}
	if err := (baseline.Request{Corpus: "-", Topics: topics, K: 10, Tag: "bm25", Out: "-"}).Run(corpus, os.Stdout, io.Discard, notes); err != nil {
		fmt.Println(err)
	}
	// Output:
	// refund Q0 faq 1 0.166295 bm25
	// refund Q0 policy 2 0.015527 bm25
	// note: warning: 1 queries matched no passage and are absent from the run: stop
}
