package parquetio

import (
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
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

// ReadAnyJudgments reads judgments in either kind of file, standard input
// included.
func TestReadAnyJudgments(t *testing.T) {
	stdin := strings.NewReader("q1 0 a 1\n")
	for _, tt := range []struct {
		path   string
		format input.Format
	}{
		{"-", "trec"},
		{"testdata/qrels.txt", "trec"},
		{"testdata/hyparquet-qrels.parquet", Format},
	} {
		f, err := input.Open(tt.path, stdin)
		if err != nil {
			t.Fatal(err)
		}
		qrels, err := ReadAnyJudgments(f, judgments.Options{})
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
		} else if qrels.Format != tt.format || len(qrels.IDs()) == 0 {
			t.Errorf("%s: format %q, %d queries; want %q", tt.path, qrels.Format, len(qrels.IDs()), tt.format)
		}
	}
}
