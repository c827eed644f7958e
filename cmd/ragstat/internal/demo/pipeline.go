package demo

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// PipelineFiles are the second part's embedded files: a small multi-tenant
// support corpus with revisions and an exceptions document, topics with
// required facts, judgments with spans, and traces of two pipelines.
var PipelineFiles = []string{"pipeline/corpus.jsonl", "pipeline/topics.jsonl", "pipeline/judgments.jsonl",
	"pipeline/traces-v1.jsonl", "pipeline/traces-v2.jsonl"}

// Pipeline evaluates the two embedded pipelines stage by stage, with the
// default strict policy and tok counting the context.
func Pipeline(tok stages.Tokenizer) (*report.Stages, error) {
	in, traces, err := pipelineInput()
	if err != nil {
		return nil, err
	}
	ms, err := metric.ParseAll([]string{"R", "RR", "nDCG"})
	if err != nil {
		return nil, err
	}
	policy := eval.DefaultPolicy()
	res, err := stages.Evaluate(in, stages.Slice(traces), stages.Options{Policy: policy, Metrics: ms, Truncated: stages.TruncatedError, Tokenizer: tok})
	if err != nil {
		return nil, err
	}
	return &report.Stages{Tool: "ragstat", Policy: policy, Result: res}, nil
}

// pipelineInput reads the second part's embedded files.
func pipelineInput() (stages.Input, []*trace.Trace, error) {
	var in stages.Input
	var err error
	if in.Judgments, err = judgments.Read(file(PipelineFiles[2]), judgments.Options{}); err != nil {
		return in, nil, err
	}
	if in.Topics, err = topics.Read(file(PipelineFiles[1])); err != nil {
		return in, nil, err
	}
	if in.Corpus, err = corpus.Read(file(PipelineFiles[0])); err != nil {
		return in, nil, err
	}
	var traces []*trace.Trace
	for _, name := range PipelineFiles[3:] {
		ts, err := trace.Read(file(name))
		if err != nil {
			return in, nil, err
		}
		traces = append(traces, ts...)
	}
	return in, traces, nil
}

// PipelineStory tells, from the numbers, the source document's opening
// story: the first relevant passage found while a needed fact is lost, each
// loss with its owner, and the invalid evidence caught.
func PipelineStory(r *stages.Result) []string {
	var out []string
	for _, sys := range r.Systems {
		last := sys.Stages[len(sys.Stages)-1]
		rr := metricIndex(last, "RR")
		for _, qf := range sys.Facts {
			if len(qf.Missing) == 0 {
				continue
			}
			out = append(out, fmt.Sprintf("%s, %q: RR in the %s is %.4f, yet required-fact coverage is %d/%d: %s",
				sys.Name, qf.Query, last.Name, rowValue(last, qf.Query, rr), qf.Supported[len(qf.Supported)-1], qf.Facts, lostFacts(sys, qf)))
		}
		v := sys.Validity
		for _, x := range v.OutOfScope {
			if x.Stage == trace.ContextStage {
				out = append(out, fmt.Sprintf("%s, %q: out-of-scope %s (scope %s) reached the generator: a permission violation, never evidence.", sys.Name, x.Query, x.Item, x.Scope))
			}
		}
		if n := len(v.Stale); n > 0 {
			out = append(out, fmt.Sprintf("%s: a stale revision was caught %d time(s) (%s, valid until %s), and %d context(s) mixed two revisions of one document.",
				sys.Name, n, v.Stale[0].Item, v.Stale[0].To, len(v.Conflicts)))
		}
		a := sys.Answers
		out = append(out, fmt.Sprintf("%s: abstained on %d of %d unanswerable queries; citation support %s; exact match %.4f.",
			sys.Name, a.Abstained, a.Unanswerable, report.Rate(a.CitationSupport), a.ExactMatch))
	}
	return out
}

// lostFacts says where each missing fact of qf stopped, and whose defect
// that is.
func lostFacts(sys *stages.System, qf stages.QueryFacts) string {
	var parts []string
	for _, l := range sys.FactLoss.Lost {
		if l.Query == qf.Query && l.Status != stages.StatusDelivered {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", l.What, l.Status, owner(l.Status)))
		}
	}
	return strings.Join(parts, "; ") + "."
}

func owner(status string) string {
	switch {
	case status == stages.StatusNotRetrieved:
		return "the retriever's defect"
	case status == stages.StatusDropped || status == stages.StatusTruncated:
		return "the context packer's defect"
	case strings.HasPrefix(status, "cut between"):
		return "the reranking cutoff's defect"
	}
	return "not acceptable evidence"
}

func metricIndex(s *stages.StageResult, name string) int {
	for i, m := range s.Eval.Metrics {
		if m.Name() == name {
			return i
		}
	}
	return -1
}

func rowValue(s *stages.StageResult, query string, i int) float64 {
	for _, row := range s.Eval.Rows {
		if row.Query == query {
			return row.Values[i]
		}
	}
	return 0
}
