// Package intervene runs the source document's controlled intervention:
// for a failing query, keep the prompt and the generator's settings fixed
// and replace the retrieved context with a manually verified evidence set.
// If the answer improves, the original context contributed to the failure;
// if it does not, look at the generator, the grading, or whether the
// evidence set really answers the question.
//
// Both arms are sent by this package, framed the same way (see Prompt), to
// the same Generator, so the only difference between them is the evidence.
// The generator is passed in: the command line's OpenAI-compatible client
// (with its cache, or Batch API files written for offline processing and
// their answers read back), or a test's stand-in.
package intervene

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// Settings are the generator settings both arms share. A value not given
// is taken from the trace's config ("model", "temperature", "seed",
// "max_tokens"); one given overrides the trace.
type Settings struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	MaxTokens   *int     `json:"max_tokens,omitempty"`
}

// over fills what s lacks from the trace's config.
func (s Settings) over(config json.RawMessage) (Settings, error) {
	var c Settings
	if len(config) > 0 {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(config, &raw); err != nil {
			return s, fmt.Errorf("trace config: %v", err)
		}
		for key, dst := range map[string]any{"model": &c.Model, "temperature": &c.Temperature, "seed": &c.Seed, "max_tokens": &c.MaxTokens} {
			if v, ok := raw[key]; ok {
				if err := json.Unmarshal(v, dst); err != nil {
					return s, fmt.Errorf("trace config %q: %v", key, err)
				}
			}
		}
	}
	if s.Model == "" {
		s.Model = c.Model
	}
	if s.Temperature == nil {
		s.Temperature = c.Temperature
	}
	if s.Seed == nil {
		s.Seed = c.Seed
	}
	if s.MaxTokens == nil {
		s.MaxTokens = c.MaxTokens
	}
	if s.Model == "" {
		return s, errors.New("no model: give one, or record \"model\" in the trace's config")
	}
	return s, nil
}

// Options configure an intervention.
type Options struct {
	Judgments *judgments.Set
	Topics    *topics.Set
	Corpus    *corpus.Corpus // item texts and metadata; may be nil
	Tokenizer tokenize.Tokenizer
	// MinGrade is the relevance threshold: the verified set of a query
	// without facts, and citation support, count items graded this or
	// more. It is a positive grade on Scale, the judgments' (the zero
	// Scale: judgments.DefaultScale).
	MinGrade int
	Scale    judgments.Scale
	// Queries are the queries to intervene on; empty means every failing
	// one: an answerable query whose recorded answer misses a reference or
	// a required fact.
	Queries []string
	// Failing asks for every failing query explicitly: it may not be given
	// with Queries.
	Failing bool
	// Settings override the traces' generator settings.
	Settings Settings
	// Citation finds the ids an answer cites (its first group is the id).
	Citation *regexp.Regexp
	// Abstain, when set, marks an answer that declines to answer; without
	// it, abstention is not recorded.
	Abstain *regexp.Regexp
	// PassF1 is the token F1 with a reference answer at which an answer
	// counts as correct; 0 asks for an exact match.
	PassF1 float64
	// Generator answers both arms.
	Generator Generator
	// Names writes an option's name in the reasons evidence is missing,
	// as the caller names it (nil: the option's own name, "corpus").
	Names func(option string) string
}

// Verdict is what one query's intervention shows.
type Verdict string

// The verdicts.
const (
	// ContextContributed: the verified context fixes the answer.
	ContextContributed Verdict = "context contributed"
	// NotTheContext: the answer fails with verified evidence too; look at
	// the generator, the grading, or the evidence set.
	NotTheContext Verdict = "not the context"
	// EvidenceInsufficient: the verified set misses a required fact, so
	// the experiment cannot clear the context.
	EvidenceInsufficient Verdict = "evidence insufficient"
	// OriginalPasses: a query chosen by name whose regenerated original
	// answer already passes.
	OriginalPasses Verdict = "original passes"
	// NotRun: a request was not answered (an error, or written to a batch).
	NotRun Verdict = "not run"
)

// Case is the intervention on one query of one system.
type Case struct {
	Query    string      `json:"query"`
	System   string      `json:"system"`
	Settings Settings    `json:"settings"`
	Layout   string      `json:"layout"` // where the context's layout came from
	Verified VerifiedSet `json:"verified"`
	Original Arm         `json:"original"`
	Fixed    Arm         `json:"verified_arm"`
	// Budget is the trace's token budget (0 when it records none).
	Budget  int     `json:"budget_tokens,omitempty"`
	Verdict Verdict `json:"verdict"`
	Note    string  `json:"note,omitempty"`
}

// Skipped is a query left out, and why.
type Skipped struct {
	Query  string `json:"query"`
	System string `json:"system,omitempty"`
	Why    string `json:"why"`
}

// Result is a whole intervention.
type Result struct {
	Tokenizer string    `json:"tokenizer"`
	MinGrade  int       `json:"min_grade"`
	Citation  string    `json:"citation_pattern"`
	Abstain   string    `json:"abstain_pattern,omitempty"`
	PassF1    float64   `json:"pass_f1"`
	Chosen    string    `json:"chosen"` // "failing" or "named"
	Cases     []Case    `json:"cases"`
	Skipped   []Skipped `json:"skipped,omitempty"`
	// Verdicts counts the cases by verdict.
	Verdicts map[Verdict]int `json:"verdicts"`
}

// Failed counts the requests that got no answer: the arms with an error.
func (r *Result) Failed() int {
	n := 0
	for _, c := range r.Cases {
		for _, a := range []Arm{c.Original, c.Fixed} {
			if a.Error != "" {
				n++
			}
		}
	}
	return n
}

// Run intervenes on the chosen queries of every trace, in the traces'
// order. An error from the generator ends the run unless the generator
// only records the requests (a Batch API file): then every case is NotRun,
// with the requests in the batch.
func Run(ctx context.Context, traces []*trace.Trace, opt Options) (*Result, error) {
	if opt.Generator == nil || opt.Tokenizer == nil || opt.Topics == nil || opt.Judgments == nil || opt.Citation == nil {
		return nil, errors.New("intervene: Options need judgments, topics, a tokenizer, a citation pattern and a generator")
	}
	if opt.Failing && len(opt.Queries) > 0 {
		return nil, &diag.OptionError{Msg: "{failing} and {queries}: give one"}
	}
	if err := cmp.Or(opt.Scale, judgments.DefaultScale).Threshold(opt.MinGrade); err != nil {
		return nil, err
	}
	res := &Result{Tokenizer: opt.Tokenizer.Name(), MinGrade: opt.MinGrade, Citation: opt.Citation.String(),
		PassF1: opt.PassF1, Chosen: "failing", Verdicts: map[Verdict]int{}}
	if opt.Abstain != nil {
		res.Abstain = opt.Abstain.String()
	}
	if len(opt.Queries) > 0 {
		res.Chosen = "named"
		for _, q := range opt.Queries {
			if !slices.ContainsFunc(traces, func(t *trace.Trace) bool { return t.Query == q }) {
				return nil, fmt.Errorf("intervene: query %s has no trace", q)
			}
		}
	}
	for _, t := range traces {
		topic := opt.Topics.Get(t.Query)
		if topic == nil {
			if slices.Contains(opt.Queries, t.Query) {
				return nil, fmt.Errorf("intervene: query %s is not in the topics", t.Query)
			}
			continue
		}
		if len(opt.Queries) > 0 && !slices.Contains(opt.Queries, t.Query) {
			continue
		}
		if why := opt.skip(t, topic); why != "" {
			res.Skipped = append(res.Skipped, Skipped{Query: t.Query, System: t.System, Why: why})
			continue
		}
		c, err := opt.intervene(ctx, t, topic)
		if err != nil {
			return nil, fmt.Errorf("intervene: query %s, system %s: %w", t.Query, t.System, err)
		}
		res.Cases = append(res.Cases, c)
		res.Verdicts[c.Verdict]++
	}
	if err := tokenize.Err(opt.Tokenizer); err != nil {
		return nil, fmt.Errorf("intervene: %w", err) // a context's count cut short
	}
	return res, nil
}

// skip says why a trace is not intervened on: without named queries, an
// unanswerable query, one with nothing to grade against, no recorded
// answer, or an answer that passes.
func (opt *Options) skip(t *trace.Trace, topic *topics.Topic) string {
	if !topic.Answerable {
		return "unanswerable: there is no evidence to verify"
	}
	if len(topic.Answers) == 0 && len(topic.Facts) == 0 {
		return "the topic gives no reference answer and no required fact to grade an answer by"
	}
	if len(opt.Queries) > 0 {
		return ""
	}
	if t.Answer == nil {
		return "the trace records no answer, so it is not known to fail (name the query to run it)"
	}
	if opt.grade(topic, t.Answer.Text, t.Answer.Citations, t.Answer.Abstained != nil && *t.Answer.Abstained, nil).Pass {
		return "the recorded answer passes"
	}
	return ""
}
