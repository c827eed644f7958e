package metric_test

import (
	"fmt"

	"github.com/ragstat/ragstat/metric"
)

// One ranked list scored by name: the grades of the returned items in
// rank order, and every judged grade of the query for the ideal ranking.
func ExampleParse() {
	ms, err := metric.ParseAll([]string{"RR@3", "nDCG@3", "ndcg_cut.3"})
	if err != nil {
		panic(err)
	}
	l := metric.NewList([]int32{0, 3, metric.Unjudged}, []int32{3, 2, 0})
	p := metric.Policy{MinGrade: 1}
	for _, m := range ms {
		fmt.Printf("%s %.4f\n", m.Name(), m.Compute(l, p))
	}
	// Output:
	// RR@3 0.5000
	// nDCG@3 0.4966
	// ndcg_cut_3 0.4441
}
