package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/metric"
)

// TestDelimitedLoads: CSV and TSV read back as one rectangular table (a
// header and nothing above it), a query named MEAN stays apart from the
// mean, and the policy column reads back as the policy.
func TestDelimitedLoads(t *testing.T) {
	ms, err := metric.ParseAll([]string{"R@3", "nDCG@3"})
	if err != nil {
		t.Fatal(err)
	}
	p := eval.DefaultPolicy()
	p.MinGrade = 2
	res := &eval.Result{Name: "A", Metrics: ms, Mean: []float64{0.5, 0.25},
		Rows: []eval.Row{{Query: "MEAN", Values: []float64{1, 0.5}}, {Query: "q,2", Values: []float64{0, 0}}}}
	r := &Eval{Policy: p, Results: []*eval.Result{res}, PerQuery: true}
	for _, format := range []struct {
		name string
		sep  rune
	}{{"csv", ','}, {"tsv", '\t'}} {
		var out bytes.Buffer
		if err := Render(&out, format.name, r); err != nil {
			t.Fatal(err)
		}
		cr := csv.NewReader(&out)
		cr.Comma = format.sep
		rows, err := cr.ReadAll() // every row as wide as the header
		if err != nil {
			t.Fatalf("%s: %v", format.name, err)
		}
		want := [][]string{
			{"run", "scope", "query", "R@3", "nDCG@3", "policy"},
			{"A", "query", "MEAN", "1.0000", "0.5000", p.String()},
			{"A", "query", "q,2", "0.0000", "0.0000", p.String()},
			{"A", "mean", "", "0.5000", "0.2500", p.String()},
		}
		if !slices.EqualFunc(rows, want, slices.Equal) {
			t.Errorf("%s: read back\n%q\nwant\n%q", format.name, rows, want)
		}
		if back, err := eval.ParsePolicy(rows[1][5]); err != nil || back != p {
			t.Errorf("%s: the policy column reads back as %+v, %v", format.name, back, err)
		}
	}
	r.CSVComments = true
	var out bytes.Buffer
	if err := Render(&out, "csv", r); err != nil {
		t.Fatal(err)
	}
	if want := "# min-grade: 2\n"; !bytes.HasPrefix(out.Bytes(), []byte(want)) || !bytes.Contains(out.Bytes(), []byte("\nrun,query,R@3,nDCG@3\nA,MEAN,1.0000,0.5000\n")) ||
		!bytes.HasSuffix(out.Bytes(), []byte("\nA,MEAN,0.5000,0.2500\n")) {
		t.Errorf("--csv-comments: got\n%s", out.String())
	}
}
