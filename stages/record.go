package stages

import (
	"math"

	"github.com/ragstat/ragstat/eval"
)

// QueryRecord is everything stages computes of one trace, handed to
// Options.PerQuery as soon as the trace is evaluated: what
// a per-query file of stages holds, one record a line.
type QueryRecord struct {
	System string `json:"system"`
	Query  string `json:"query"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	// TraceID is the trace's id in the system it was imported from, when
	// recorded (trace.Trace.TraceID).
	TraceID    string `json:"trace_id,omitempty"`
	Answerable bool   `json:"answerable"`
	Judged     bool   `json:"judged"`
	// Stages are the trace's stages in order, each with the query's value
	// of every metric when the query is answerable and judged.
	Stages []QueryStage `json:"stages"`
	Facts  *QueryFacts  `json:"facts,omitempty"`
	// Evidence follows every relevant judgment through the stages,
	// FactLoss every required fact.
	Evidence      []Lost         `json:"evidence,omitempty"`
	FactLoss      []Lost         `json:"fact_loss,omitempty"`
	Budget        *Budget        `json:"budget,omitempty"`
	TruncatedAway []Lost         `json:"truncated_away,omitempty"`
	Validity      ValidityReport `json:"validity"`
	// Answer is the answer report over this trace alone.
	Answer    AnswerReport       `json:"answer"`
	LatencyMS map[string]float64 `json:"latency_ms,omitempty"`
	// Search holds the trace's search steps of several calls.
	Search []SearchStep `json:"search_steps,omitempty"`
}

// QueryStage is one stage of one trace.
type QueryStage struct {
	Name   string `json:"stage"`
	K      int    `json:"k"`
	Length int    `json:"length"` // items in the list at the cutoff
	// SpanID is the id of the span the stage was read from, when recorded
	// (trace.Stage.SpanID).
	SpanID string `json:"span_id,omitempty"`
	// Values holds each metric's value (null where undefined); nil when
	// the query is not scored.
	Values   []MetricValue `json:"values,omitempty"`
	Unjudged int           `json:"unjudged"`
}

// MetricValue is one metric's value for one query at one stage; High is
// the upper end under the unjudged policy bounds.
type MetricValue struct {
	Metric string   `json:"metric"`
	Value  *float64 `json:"value"`
	High   *float64 `json:"high,omitempty"`
}

// record describes the trace d was computed from.
func (d *digest) record(opt Options, ev *eval.Evaluator) *QueryRecord {
	r := &QueryRecord{System: d.system, Query: d.query, File: d.file, Line: d.line, Answerable: d.answerable,
		Judged: d.judged, Facts: d.facts, Evidence: d.loss, FactLoss: d.factLoss, Budget: d.budget,
		TruncatedAway: d.truncated, Validity: d.validity, Answer: d.answers.report(), LatencyMS: d.latency, Search: d.search, TraceID: d.traceID}
	for i, name := range d.names {
		st := QueryStage{Name: name, K: opt.Cutoffs[name], Length: d.lengths[i]}
		if d.spanIDs != nil {
			st.SpanID = d.spanIDs[i]
		}
		if i < len(d.rows) {
			row := d.rows[i]
			st.Unjudged = row.Unjudged
			for k, m := range ev.Metrics() {
				v := MetricValue{Metric: m.Name(), Value: finite(row.Values[k])}
				if row.High != nil {
					v.High = finite(row.High[k])
				}
				st.Values = append(st.Values, v)
			}
		}
		r.Stages = append(r.Stages, st)
	}
	return r
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
