package judgments_test

import (
	"fmt"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

// Judgments read strictly from a TREC qrels file: a grade off the scale
// would be an error naming the file, line, query and item.
func ExampleRead() {
	qrels := "refund 0 policy 3\nrefund 0 noise 0\nlimits 0 limit 2\n"
	set, err := judgments.Read(input.FromBytes("qrels.txt", []byte(qrels)), judgments.Options{})
	if err != nil {
		panic(err)
	}
	for _, id := range set.IDs() {
		q := set.Query(id)
		fmt.Println(id, q.Items())
	}
	g, ok := set.Query("refund").Grade("policy")
	fmt.Println(set.Format, g, ok)
	_, err = judgments.Read(input.FromBytes("qrels.txt", []byte("refund 0 policy 7\n")), judgments.Options{})
	fmt.Println(err)
	// Output:
	// refund [policy noise]
	// limits [limit]
	// trec 3 true
	// qrels.txt:1: query "refund", item "policy": grade 7 is outside the scale 0..3 (fix the grade, or declare the scale with grades MIN..MAX)
}
