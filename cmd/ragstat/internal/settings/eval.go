// Package settings turns the command line's words into the library's
// typed values: the evaluation policy and metrics, per-stage cutoffs,
// the mapping of foreign traces, the tokenizer. Each setting has one path
// from its flag to its use, with one type; errors about a setting are
// diag.OptionErrors naming it as an option ("min_grade"), which the
// command line names as its flag (--min-grade).
package settings

import (
	"cmp"
	"encoding"
	"fmt"
	"regexp"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/stats"
)

// Eval describes an evaluation as the command line gives it: the files by
// path, the threshold as a number, every other policy choice by name (""
// keeps the strict default, or what Like set), the metrics by name. Open
// reads the files and builds the Evaluator; its errors about a setting are
// diag.OptionErrors naming the setting as an Option (the JSON name:
// "unjudged", "doc_map").
type Eval struct {
	Judgments       string // the judgments (qrels) file
	JudgmentsFormat string // "", auto, trec, jsonl or json (Parquet needs Files.ReadJudgments)
	// Metrics are the metric names (metric.ParseAllLike); none: R@k, RR@k
	// and nDCG@k at Cutoff (10 when 0).
	Metrics []string
	Cutoff  int
	Like    string // a tool whose behaviour every policy takes first (Policy.SetLike)
	// MinGrade is the threshold, always given (the flag's default is 1);
	// Grades ("MIN..MAX") is the scale, "" keeping the default.
	MinGrade                                             int
	Grades                                               string
	Gain, Unjudged, Unanswerable, Queries, JudgedDivisor string
	Unit, Order                                          string
	Subtopics                                            string // subtopic judgments (TREC diversity qrels), for alpha-nDCG and ERR-IA
	// DocMap (an item-to-document map file) or DocIDPattern (a regular
	// expression whose first group is the document) give the doc unit its
	// documents.
	DocMap, DocIDPattern string
	NumericIDs           bool // JSON ids written as integers are accepted
	// Labels is the label choice (ParseLabels), needed when the judgments
	// hold LLM labels; Confidence the level of ppi's intervals (0: 0.95).
	Labels     string
	Confidence float64
}

// Policy is the strict default, then what Like sets (listed, one "name
// value (why)" each, for the output's notes), then every choice given,
// checked with Validate.
func (s Eval) Policy() (eval.Policy, []string, error) {
	p := eval.DefaultPolicy()
	var preset []string
	var err error
	if s.Like != "" {
		if preset, err = p.SetLike(s.Like); err != nil {
			return p, nil, err
		}
	}
	if err := set(&p.Scale, s.Grades, judgments.ParseScale); err != nil {
		return p, nil, err
	}
	p.MinGrade = s.MinGrade
	for _, err := range []error{
		set(&p.Unit, s.Unit, text[eval.Unit]),
		set(&p.Order, s.Order, func(v string) (runs.Order, error) {
			o, err := runs.ParseOrder(v)
			if err != nil {
				return o, &diag.OptionError{Scope: "policy", Option: "order", Value: v, Msg: "is not score or rank"}
			}
			return o, nil
		}),
		set(&p.Gain, s.Gain, metric.ParseGain),
		set(&p.Unjudged, s.Unjudged, text[eval.Unjudged]),
		set(&p.Unanswerable, s.Unanswerable, text[eval.Unanswerable]),
		set(&p.Queries, s.Queries, text[eval.QuerySet]),
		set(&p.JudgedDivisor, s.JudgedDivisor, text[eval.JudgedDivisor]),
		set(&p.Labels, s.Labels, text[eval.Labels]),
	} {
		if err != nil {
			return p, nil, err
		}
	}
	return p, preset, p.Validate()
}

// text reads a setting's name into its type.
func text[T any, PT interface {
	*T
	encoding.TextUnmarshaler
}](s string) (T, error) {
	var v T
	err := PT(&v).UnmarshalText([]byte(s))
	return v, err
}

// set parses a setting given into *dst; "" keeps *dst.
func set[T any](dst *T, s string, parse func(string) (T, error)) error {
	if s == "" {
		return nil
	}
	v, err := parse(s)
	if err == nil {
		*dst = v
	}
	return err
}

// MetricList parses the metrics named, under p's meaning of shared names;
// none named: defaults, each at Cutoff (10 when 0).
func (s Eval) MetricList(p eval.Policy) ([]metric.Metric, error) {
	names := s.Metrics
	if len(names) == 0 {
		k := cmp.Or(s.Cutoff, 10)
		names = []string{fmt.Sprintf("R@%d", k), fmt.Sprintf("RR@%d", k), fmt.Sprintf("nDCG@%d", k)}
	}
	return metric.ParseAllLike(names, p.Like)
}

// Files is how Open reaches the files settings name.
type Files struct {
	// Open opens a path; it is required (a command line passes input.Open
	// with its standard input).
	Open func(path string) (*input.File, error)
	// ReadJudgments reads the judgments file; nil means judgments.Read,
	// the text formats (parquetio.ReadAnyJudgments adds Parquet).
	ReadJudgments func(*input.File, judgments.Options) (*judgments.Set, error)
	// Keep, when not nil, is called with the judgments as read and returns
	// the queries to evaluate; the others are left out of the judgments and
	// passed over in every run (one shard of an evaluation split by query).
	Keep func(*judgments.Set) func(query string) bool
	// Digest computes the judgments file's SHA-256 as it is read
	// (input.File.KeepSHA256), for a manifest.
	Digest bool
	// merged is the name of judgments merged from several files
	// (MergingJudgments), which merge opens with the evaluation's options
	// and ReadJudgments gives whole.
	merged string
	merge  func(judgments.Options) (*input.File, error)
}

// An Evaluation is what Open built.
type Evaluation struct {
	*eval.Evaluator
	File   *input.File // the judgments file, for its name and digest; Close closes it
	Preset []string    // what Like set, one "name value (why)" each
	// Labelled is the judgments as read, LLM labels and all; the
	// Evaluator scores the reading the policy's Labels chose.
	Labelled *judgments.Set
	// LabelNotes say what the label choice reads; Agreement is how the
	// LLM labels agree with people's grades of the same pairs (nil when
	// none carries both); Correction corrects the means under ppi (nil
	// otherwise).
	LabelNotes []string
	Agreement  *eval.Agreement
	Correction *eval.Correction
}

// Open builds the policy and metrics, reads the judgments, the document
// map and the subtopics, and prepares the Evaluator. On error every file
// it opened is closed.
func (s Eval) Open(files Files) (_ *Evaluation, err error) {
	p, preset, err := s.Policy()
	if err != nil {
		return nil, err
	}
	ms, err := s.MetricList(p)
	if err != nil {
		return nil, err
	}
	format, _ := input.ParseFormat(s.JudgmentsFormat)
	opt := judgments.Options{Format: format, Scale: p.Scale, NumericIDs: s.NumericIDs}
	jf, err := files.openJudgments(s.Judgments, opt)
	if err != nil {
		return nil, err
	}
	if files.Digest {
		jf.KeepSHA256()
	}
	defer func() {
		if err != nil {
			jf.Close()
		}
	}()
	read := files.ReadJudgments
	if read == nil {
		read = judgments.Read
	}
	qrels, err := read(jf, opt)
	if err != nil {
		return nil, err
	}
	var keep func(string) bool
	if files.Keep != nil {
		keep = files.Keep(qrels)
		qrels = qrels.Subset(keep)
	}
	out := &Evaluation{File: jf, Preset: preset, Labelled: qrels}
	if qrels, out.LabelNotes, err = p.Labels.Choose(qrels); err != nil {
		return nil, err
	}
	docOf, err := s.docOf(p.Unit, files.Open)
	if err != nil {
		return nil, err
	}
	if out.Evaluator, err = eval.New(qrels, p, ms, docOf); err != nil {
		return nil, err
	}
	if out.Agreement, err = eval.Agree(out.Labelled, p.Scale); err != nil {
		return nil, err
	}
	if p.Labels == eval.LabelsPPI {
		if keep != nil {
			return nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(eval.LabelsPPI), Msg: "draws on the whole audit: it does not split into shards"}
		}
		if out.Correction, err = eval.NewCorrection(out.Labelled, p, ms, docOf, cmp.Or(s.Confidence, stats.DefaultLevel)); err != nil {
			return nil, err
		}
		out.LabelNotes = append(out.LabelNotes, out.Correction.Notes()...)
	}
	if s.Subtopics != "" {
		st, err := readSubtopics(out.Evaluator, s.Subtopics, files.Open)
		if err != nil {
			return nil, err
		}
		if out.Correction != nil {
			if err := out.Correction.UseSubtopics(st); err != nil {
				return nil, err
			}
		}
	}
	out.Restrict(keep)
	return out, nil
}

// docOf is the document of each item under the doc unit: from the pattern
// or the map, exactly one of which the doc unit needs (and no other unit
// takes).
func (s Eval) docOf(unit eval.Unit, open func(string) (*input.File, error)) (func(string) string, error) {
	switch {
	case unit != eval.UnitDoc:
		if s.DocMap != "" || s.DocIDPattern != "" {
			return nil, &diag.OptionError{Scope: "policy", Option: "doc_map", Msg: "and {doc_id_pattern} apply to {unit} doc only"}
		}
		return nil, nil
	case s.DocMap != "" && s.DocIDPattern != "":
		return nil, &diag.OptionError{Scope: "policy", Msg: "give {doc_map} or {doc_id_pattern}, not both"}
	case s.DocIDPattern != "":
		docOf, err := docPattern(s.DocIDPattern)
		if err != nil {
			return nil, &diag.OptionError{Scope: "policy", Option: "doc_id_pattern", Err: err}
		}
		return docOf, nil
	case s.DocMap != "":
		mf, err := open(s.DocMap)
		if err != nil {
			return nil, err
		}
		defer mf.Close()
		return eval.ReadDocMap(mf)
	}
	return nil, &diag.OptionError{Scope: "policy", Option: "unit", Value: string(eval.UnitDoc), Msg: "needs {doc_map} FILE or {doc_id_pattern} REGEX"}
}

// docPattern maps an item to the first group of pattern; an id the pattern
// does not match is its own document (a judgment already at document level).
func docPattern(pattern string) (func(string) string, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("document id pattern: %v", err)
	}
	if re.NumSubexp() < 1 {
		return nil, fmt.Errorf("document id pattern %q has no group: put the document id in (...)", pattern)
	}
	return func(item string) string {
		if m := re.FindStringSubmatch(item); m != nil && m[1] != "" {
			return m[1]
		}
		return item
	}, nil
}

// readSubtopics reads the subtopic judgments at path for the diversity
// metrics of e, and returns them.
func readSubtopics(e *eval.Evaluator, path string, open func(string) (*input.File, error)) (*judgments.Subtopics, error) {
	sf, err := open(path)
	if err != nil {
		return nil, err
	}
	defer sf.Close()
	st, err := judgments.ReadSubtopics(sf, e.Policy().Scale)
	if err != nil {
		return nil, err
	}
	return st, e.UseSubtopics(st)
}
