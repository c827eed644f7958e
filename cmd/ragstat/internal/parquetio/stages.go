package parquetio

import (
	"fmt"
	"io"
	"math"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/stages"
)

// StagesWriter writes the records of `ragstat stages --per-query-out` as
// Parquet as they come: one row per trace and stage, with columns system,
// query, file, line, answerable, judged, stage, k, length, unjudged,
// facts (the query's required facts), facts_supported (those the stage
// supports), evidence (the query's relevant judgments), evidence_delivered
// (those that reached the end of the pipeline), and one double column per
// metric, named as ragstat names it (NaN where the query is not scored).
// Rows are flushed in groups, so memory stays bounded.
type StagesWriter struct {
	pw      *parquet.Writer
	column  map[string]int
	metrics []string
}

// NewStagesWriter starts a file whose metric columns are metrics.
func NewStagesWriter(w io.Writer, metrics []string) (*StagesWriter, error) {
	group := parquet.Group{
		"system": parquet.String(), "query": parquet.String(), "file": parquet.String(), "line": parquet.Int(64),
		"answerable": parquet.Leaf(parquet.BooleanType), "judged": parquet.Leaf(parquet.BooleanType),
		"stage": parquet.String(), "k": parquet.Int(64), "length": parquet.Int(64), "unjudged": parquet.Int(64),
		"facts": parquet.Int(64), "facts_supported": parquet.Int(64), "evidence": parquet.Int(64), "evidence_delivered": parquet.Int(64),
	}
	fixed := len(group)
	for _, m := range metrics {
		group[m] = parquet.Leaf(parquet.DoubleType)
	}
	if len(group) != fixed+len(metrics) {
		return nil, fmt.Errorf("a metric's name collides with a column of the per-query table")
	}
	schema := parquet.NewSchema("ragstat_stages", group)
	s := &StagesWriter{pw: parquet.NewWriter(w, schema, parquet.MaxRowsPerRowGroup(1<<16)), column: map[string]int{}, metrics: metrics}
	for i, f := range schema.Fields() {
		s.column[f.Name()] = i
	}
	return s, nil
}

// Write adds one trace's rows.
func (s *StagesWriter) Write(r *stages.QueryRecord) error {
	delivered := 0
	for _, l := range r.Evidence {
		if l.Status == stages.StatusDelivered {
			delivered++
		}
	}
	facts := 0
	if r.Facts != nil {
		facts = r.Facts.Facts
	}
	rows := make([]parquet.Row, 0, len(r.Stages))
	for i, st := range r.Stages {
		row := make(parquet.Row, len(s.column))
		set := func(name string, v parquet.Value) { row[s.column[name]] = v.Level(0, 0, s.column[name]) }
		str := func(name, v string) { set(name, parquet.ByteArrayValue([]byte(v))) }
		num := func(name string, v int) { set(name, parquet.Int64Value(int64(v))) }
		str("system", r.System)
		str("query", r.Query)
		str("file", r.File)
		num("line", r.Line)
		set("answerable", parquet.BooleanValue(r.Answerable))
		set("judged", parquet.BooleanValue(r.Judged))
		str("stage", st.Name)
		num("k", st.K)
		num("length", st.Length)
		num("unjudged", st.Unjudged)
		num("facts", facts)
		supported := 0
		if r.Facts != nil {
			supported = r.Facts.Supported[i]
		}
		num("facts_supported", supported)
		num("evidence", len(r.Evidence))
		num("evidence_delivered", delivered)
		for _, m := range s.metrics {
			set(m, parquet.DoubleValue(math.NaN()))
		}
		for _, v := range st.Values {
			if v.Value != nil {
				set(v.Metric, parquet.DoubleValue(*v.Value))
			}
		}
		rows = append(rows, row)
	}
	_, err := s.pw.WriteRows(rows)
	return err
}

// Close writes what is buffered and the file's footer.
func (s *StagesWriter) Close() error { return s.pw.Close() }
