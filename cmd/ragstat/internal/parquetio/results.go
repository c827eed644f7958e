package parquetio

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/ragstat/ragstat/eval"
)

// WriteEval writes one row per query of every result: run, query,
// missing_from_run, unjudged, folded, and one double column per metric
// (named as ragstat names it, e.g. "nDCG@10"; under --unjudged bounds the
// low end, with the high end in "nDCG@10_high"). Parquet orders the columns
// by name.
func WriteEval(w io.Writer, results []*eval.Result) error {
	if len(results) == 0 {
		return fmt.Errorf("no results to write")
	}
	ms := results[0].Metrics
	bounds := results[0].MeanHigh != nil
	group := parquet.Group{
		"run":              parquet.String(),
		"query":            parquet.String(),
		"missing_from_run": parquet.Leaf(parquet.BooleanType),
		"unjudged":         parquet.Int(64),
		"folded":           parquet.Int(64),
	}
	for _, m := range ms {
		group[m.Name()] = parquet.Leaf(parquet.DoubleType)
		if bounds {
			group[m.Name()+"_high"] = parquet.Leaf(parquet.DoubleType)
		}
	}
	if len(group) != 5+len(ms)*(1+btoi(bounds)) {
		return fmt.Errorf("a metric's name collides with a column of the per-query table")
	}
	schema := parquet.NewSchema("ragstat_eval", group)
	column := map[string]int{}
	for i, f := range schema.Fields() {
		column[f.Name()] = i
	}
	pw := parquet.NewWriter(w, schema)
	for _, res := range results {
		rows := make([]parquet.Row, 0, len(res.Rows))
		for _, q := range res.Rows {
			row := make(parquet.Row, len(group))
			set := func(name string, v parquet.Value) { row[column[name]] = v.Level(0, 0, column[name]) }
			set("run", parquet.ByteArrayValue([]byte(res.Name)))
			set("query", parquet.ByteArrayValue([]byte(q.Query)))
			set("missing_from_run", parquet.BooleanValue(q.Missing))
			set("unjudged", parquet.Int64Value(int64(q.Unjudged)))
			set("folded", parquet.Int64Value(int64(q.Folded)))
			for i, m := range ms {
				set(m.Name(), parquet.DoubleValue(q.Values[i]))
				if bounds {
					set(m.Name()+"_high", parquet.DoubleValue(q.High[i]))
				}
			}
			rows = append(rows, row)
		}
		if _, err := pw.WriteRows(rows); err != nil {
			return err
		}
	}
	return pw.Close()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
