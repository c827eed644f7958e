package evalemit_test

import (
	"fmt"
	"os"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/evalemit"
	"github.com/ragstat/ragstat/stages"
)

// An Emitter takes each trace's record as stages evaluates it
// (stages.Options.PerQuery) and writes the evaluations once the result's
// manifest digest is known: here, as Langfuse scores.
func ExampleEmitter() {
	em, err := evalemit.New(evalemit.Options{Format: evalemit.Langfuse, Version: "1.0.0"})
	if err != nil {
		panic(err)
	}
	defer em.Close()
	recall := 0.5
	err = em.Add(&stages.QueryRecord{System: "rag", Query: "refund", TraceID: "4f8f4c1083e83c45a0809ed94ad4f4d3",
		Stages: []stages.QueryStage{{Name: "candidates", K: 10, SpanID: "4c34cce44a477d1c",
			Values: []stages.MetricValue{{Metric: "R@10", Value: &recall}}}},
		Evidence: []stages.Lost{{Query: "refund", What: "policy#2", Grade: 2, Status: stages.StatusNotRetrieved}}})
	if err != nil {
		panic(err)
	}
	c, err := em.Finish(os.Stdout, "5d41402abc4b2a76")
	fmt.Println(c.Written, err)
	// Output:
	// {"id":"242bb55f1b2d1129c90de9f3d8e18f64cce2352e5df83bb18256a72f58923486","traceId":"4f8f4c1083e83c45a0809ed94ad4f4d3","observationId":"4c34cce44a477d1c","name":"ragstat.R@10","value":0.5,"dataType":"NUMERIC","comment":"R@10 of stage candidates at k=10 for query refund","metadata":{"ragstat.manifest.sha256":"5d41402abc4b2a76","ragstat.query":"refund","ragstat.system":"rag","ragstat.version":"1.0.0"}}
	// {"id":"cc7bd935208c15c39a1c2a0c712cfbf54f61d1729a3f1bc6088935f9b98623c6","traceId":"4f8f4c1083e83c45a0809ed94ad4f4d3","observationId":"4c34cce44a477d1c","name":"ragstat.evidence","value":0,"dataType":"NUMERIC","comment":"relevant item policy#2 (grade 2): not retrieved","metadata":{"label":"not retrieved","ragstat.manifest.sha256":"5d41402abc4b2a76","ragstat.query":"refund","ragstat.system":"rag","ragstat.version":"1.0.0"}}
	// 2 <nil>
}
