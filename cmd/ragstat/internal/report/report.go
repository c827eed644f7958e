// Package report renders evaluation results: an aligned table for people,
// JSON, JSON Lines, CSV and TSV for programs, Markdown for pull requests,
// and trec_eval's measure/qid/value rows for old scripts. Every format states
// the policy and the cutoffs beside the numbers. A renderer only formats:
// every number it prints was computed by package eval.
package report

import (
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/traceimport"
)

// Input is one file an evaluation read, for the record.
type Input struct {
	Role   string `json:"role"` // "judgments", "run", "topics", "corpus", "traces", ...
	Path   string `json:"path"`
	Format string `json:"format"`
	SHA256 string `json:"sha256,omitempty"`
	// Mapping is how a trace file in another format (OpenTelemetry,
	// LangSmith, Langfuse) became ragstat traces: its import manifest.
	Mapping any `json:"mapping,omitempty"`
}

// Eval is everything one `ragstat eval` prints.
type Eval struct {
	Tool     string
	Version  string
	Policy   eval.Policy
	Inputs   []Input
	Results  []*eval.Result
	PerQuery bool              // print a row per query, not only the means
	Labels   map[string]string // optional column labels by metric name
	Notes    []string          // facts the reader must see (folded items, ignored queries)
	// CSVComments writes CSV and TSV as before: the policy as "#" lines
	// above the header and each mean as a query named MEAN.
	CSVComments bool
	// Shard marks a partial result (eval --shard): recorded in the JSON
	// manifest for the merge.
	Shard *eval.Shard
	// LLM is the PPI++ means and the LLM's agreement with people, when
	// the judgments hold LLM labels; nil otherwise.
	LLM *LLMLabels
}

// Formats lists the names Render accepts.
var Formats = []string{"table", "json", "jsonl", "csv", "tsv", "markdown", "trec"}

// Render writes r in format.
func Render(w io.Writer, format string, r *Eval) error {
	switch format {
	case "table":
		return table(w, r)
	case "json":
		return jsonDoc(w, r)
	case "jsonl":
		return jsonLines(w, r)
	case "csv":
		return delimited(w, r, ',')
	case "tsv":
		return delimited(w, r, '\t')
	case "markdown":
		return markdown(w, r)
	case "trec":
		return trec(w, r)
	}
	return fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
}

// printsNotes reports whether format prints Eval.Notes (table, markdown,
// json); the others have no place for them, so a caller shows them apart.
func printsNotes(format string) bool {
	return format == "table" || format == "markdown" || format == "json"
}

// metrics is the metric list shared by every result.
func (r *Eval) metrics() []metric.Metric {
	if len(r.Results) == 0 {
		return nil
	}
	return r.Results[0].Metrics
}

func (r *Eval) label(m metric.Metric) string {
	if l, ok := r.Labels[m.Name()]; ok {
		return l
	}
	return m.Name()
}

func (r *Eval) bounds() bool { return r.Policy.Unjudged == eval.UnjudgedBounds }

// policyLines states the policy and cutoffs, one "name: value" per line.
func (r *Eval) policyLines() []string {
	var out []string
	for _, f := range r.Policy.Fields() {
		out = append(out, f[0]+": "+f[1])
	}
	names := make([]string, 0, len(r.metrics()))
	for _, m := range r.metrics() {
		names = append(names, m.Name())
	}
	out = append(out, "metrics: "+strings.Join(names, " "))
	return append(out, r.Definitions()...)
}

// Definitions names the definition each column used, one line each
// ("definition ndcg@10 = ranx ndcg ..."): CSV and TSV have no place for
// them (unless CSVComments), so a caller shows them apart.
func (r *Eval) Definitions() []string {
	var out []string
	for _, m := range r.metrics() {
		out = append(out, "definition "+m.Definition(r.Policy.MetricPolicy(), flagname.Flag))
	}
	return out
}

// row is one printed line of values: a query or a mean.
type row struct {
	run, query string
	low, high  []float64
	perQuery   bool
}

// rows yields, for every run, its query rows (when asked) then its mean.
func (r *Eval) rows() iter.Seq[row] {
	return func(yield func(row) bool) {
		for _, res := range r.Results {
			for x := range r.resultRows(res) {
				if !yield(x) {
					return
				}
			}
		}
	}
}

// resultRows yields res's query rows (when asked) then its mean.
func (r *Eval) resultRows(res *eval.Result) iter.Seq[row] {
	return func(yield func(row) bool) {
		if r.PerQuery {
			for _, q := range res.Rows {
				if !yield(row{res.Name, q.Query, q.Values, q.High, true}) {
					return
				}
			}
		}
		yield(row{res.Name, "MEAN", res.Mean, res.MeanHigh, false})
	}
}

// Digests records in each input the SHA-256 of the file at the same
// index, as read so far (input.File.KeepSHA256 computes it while reading).
func Digests(inputs []Input, files []*input.File) error {
	for i, f := range files {
		sum, err := f.SHA256()
		if err != nil {
			return err
		}
		inputs[i].SHA256 = sum
	}
	return nil
}

// StagesInputs are the records of a stages evaluation's files: each of
// files in its role (roles[i]), the judgments in format ("" when they were
// not read), then every trace file with the import manifest mapped gives
// for its path when it was mapped from another format (nil: none was).
func StagesInputs(files []*input.File, roles []string, format input.Format, traces []*systems.Input, mapped func(path string) *traceimport.Manifest) []Input {
	var inputs []Input
	for i, f := range files {
		in := Input{Role: roles[i], Path: f.Name, Format: "jsonl"}
		if in.Role == "judgments" && format != "" {
			in.Format = string(format)
		}
		inputs = append(inputs, in)
	}
	for _, in := range traces {
		rec := Input{Role: "traces", Path: in.File.Name, Format: in.Format}
		if mapped != nil {
			if man := mapped(in.File.Name); man != nil {
				rec.Mapping = man
			}
		}
		inputs = append(inputs, rec)
	}
	return inputs
}
