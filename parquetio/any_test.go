package parquetio

import (
	"slices"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

// ReadAnyJudgments and Evaluate take Parquet and text alike: the fixtures
// written both ways score the same.
func TestAnyFormat(t *testing.T) {
	ms, err := metric.ParseAll([]string{"nDCG@10", "R@10"})
	if err != nil {
		t.Fatal(err)
	}
	var means [][]float64
	for _, names := range [][2]string{{"qrels.txt", "run.txt"}, {"hyparquet-qrels.parquet", "hyparquet-run.parquet"}} {
		qrels, err := ReadAnyJudgments(fixture(t, names[0]), judgments.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := eval.DefaultPolicy()
		p.Unjudged, p.Queries = eval.UnjudgedNonrelevant, eval.QueriesBoth
		ev, err := eval.New(qrels, p, ms, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Evaluate(ev, "sys", fixture(t, names[1]), runs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		means = append(means, res.Mean)
	}
	if !slices.Equal(means[0], means[1]) {
		t.Errorf("text means %v, Parquet means %v", means[0], means[1])
	}
}
