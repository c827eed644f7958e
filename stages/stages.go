// Package stages evaluates what every stage of a RAG pipeline delivered,
// from traces: the usual metrics at each stage's own cutoff (candidates,
// reranked, the packed context), where each relevant passage and each
// required fact was lost and why, whether the packed context fits the
// generator's token budget and kept the answer-bearing spans, whether the
// evidence was valid for the query (permission scope, effective date,
// conflicting revisions), and how the answer behaved (abstention,
// citations, correctness, latency). Everything is exact and deterministic:
// no language model is asked anything.
package stages

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/topics"
)

// Tokenizer counts tokens the way the generator does.
type Tokenizer interface {
	Name() string
	Count(text string) int
}

// Truncated says what to do with a context item whose packed text is
// shorter than its corpus text while its judgment names no span.
type Truncated string

// The truncation policies.
const (
	TruncatedError   Truncated = "error"   // its grade cannot be inherited: an error
	TruncatedInherit Truncated = "inherit" // keep the full item's grade
	TruncatedDrop    Truncated = "drop"    // count it as grade 0
)

// ParseTruncated reads a truncation policy by name.
func ParseTruncated(s string) (Truncated, error) {
	switch t := Truncated(strings.ToLower(s)); t {
	case TruncatedError, TruncatedInherit, TruncatedDrop:
		return t, nil
	}
	return "", fmt.Errorf("unknown truncated policy %q: use error, inherit or drop", s)
}

// Options are the policies of one evaluation.
type Options struct {
	Policy          eval.Policy
	Metrics         []metric.Metric
	Cutoffs         map[string]int // stage name -> k; absent or 0: the whole list
	Truncated       Truncated
	AllowNoMetadata bool      // with scopes or dates in play, accept items with no metadata
	Tokenizer       Tokenizer // nil: no token accounting
	// Analyses turns on the analyses of the evidence boundary (nil: off).
	Analyses *AnalysisOptions
	// Summary keeps memory bounded by the queries' metric values (none
	// with Input.Spilled): the means, counts and percentiles of a full
	// result, but of the per-query listings only the first 20 lost
	// items, fact coverage lines and search steps in query order, the
	// budgets over or disagreeing with the reported size, and every
	// problem (validity, answers, truncated spans). PerQuery still
	// receives everything.
	Summary bool
	// Shard, when set, evaluates only the queries it keeps (one shard of
	// an evaluation split by query): the judgments are restricted to them,
	// other traces are passed over, and each system carries the Partial
	// that Merge needs.
	Shard func(query string) bool
	// PerQuery, when set, receives each trace's record as soon as it is
	// evaluated, one call at a time, in the order traces are read.
	PerQuery func(*QueryRecord) error
}

// listed is how many lost items and fact coverage lines a Summary result
// keeps: the first in query order, as the table shows them.
const listed = 20

// Input is what traces are evaluated against.
type Input struct {
	Judgments *judgments.Set
	Topics    *topics.Set
	Corpus    *corpus.Corpus // may be nil
	// Spilled, when set, holds the judgments and topics in a temporary
	// file instead (Judgments and Topics are then nil; Request.Spill),
	// and the evaluation keeps its per-query values in temporary files
	// beside it: memory does not grow with the number of queries.
	Spilled *Spilled
	// Nuggets, when set, holds the four nugget scores of each query's
	// answer (NuggetAnswers), reported beside fact coverage.
	Nuggets map[string]topics.NuggetScores
}

// Close removes the spill file, if any.
func (in Input) Close() error { return in.Spilled.Close() }

// JudgmentsFormat is the format the judgments were read in.
func (in Input) JudgmentsFormat() input.Format {
	if in.Spilled != nil {
		return in.Spilled.Format
	}
	return in.Judgments.Format
}

func (in Input) topicsFile() string {
	if in.Spilled != nil {
		return in.Spilled.TopicsFile
	}
	return in.Topics.File
}

// Result is the evaluation of every system found in the traces.
type Result struct {
	Options   Options   `json:"-"`
	Tokenizer string    `json:"tokenizer,omitempty"`
	Systems   []*System `json:"systems"`
	// Positions gives, under Options.Shard, each of the shard's judged
	// answerable queries the line of its first judgment: their order in
	// the judgments, whether or not the other shards' judgments were read
	// (judgments.Options.Keep), for Merge.
	Positions map[string]int `json:"-"`
}

// System is one system's evaluation.
type System struct {
	Name   string         `json:"name"`
	Stages []*StageResult `json:"stages"`
	// Loss tells, for every relevant judgment of every answerable query,
	// where it stopped; FactLoss the same for required facts.
	Loss     Waterfall      `json:"evidence_loss"`
	FactLoss Waterfall      `json:"fact_loss"`
	Facts    []QueryFacts   `json:"facts,omitempty"`
	Context  ContextReport  `json:"context"`
	Validity ValidityReport `json:"validity"`
	Answers  AnswerReport   `json:"answers"`
	Latency  []Percentiles  `json:"latency_ms,omitempty"`
	// Search lists, by query, every search step of several calls (under
	// Options.Summary, the first 20).
	Search []SearchStep `json:"search_steps,omitempty"`
	// Turns slices the stages' means by the traces' turn index in their
	// conversations; nil unless some trace is a second turn or later.
	Turns   []TurnSlice `json:"turns,omitempty"`
	Configs []string    `json:"configs,omitempty"`
	// ContextOnly says the system's traces record no stage but the
	// context: what was retrieved is not known, so evidence missing from
	// the context stopped "not in the context", never "not retrieved".
	ContextOnly bool `json:"context_only,omitempty"`
	// Analyses are present when Options.Analyses asks for them.
	Analyses *Analyses `json:"analyses,omitempty"`
	// Summary is set when the result holds the Options.Summary listings
	// only; FactLines is then the number of queries with required facts.
	Summary   bool `json:"-"`
	FactLines int  `json:"-"`
	// Partial is present under Options.Shard: what Merge needs beyond the
	// rest.
	Partial *partial `json:"partial,omitempty"`
}

// StageResult is one stage's metrics.
type StageResult struct {
	Name string `json:"name"`
	K    int    `json:"k"` // 0: the whole list
	// Eval holds per-query rows and means, exactly as `ragstat eval`
	// computes them over this stage's lists at its cutoff.
	Eval *eval.Result `json:"-"`
	// FactCoverage is the mean, over answerable queries with facts, of the
	// share of required facts this stage supports.
	FactCoverage float64 `json:"fact_coverage"`
	FactQueries  int     `json:"fact_queries"`
	MeanLength   float64 `json:"mean_length"`
	MaxLength    int     `json:"max_length"`
}
