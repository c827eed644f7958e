package compare

import (
	"fmt"
	"io"
	"slices"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/manifest"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/traceimport"
)

// A Request describes a comparison in words, as a command line gives them:
// the evaluation's settings, the files given beside the systems, the
// statistics and the gate. Errors about a setting are diag.OptionErrors
// naming it as an Option ("level", "slice_by").
type Request struct {
	eval.Settings
	// Topics is the topics file: query texts for the regressions, tags
	// and fields to slice by; traces need it. Corpus is the corpus
	// snapshot, recorded by digest (traces read item metadata from it).
	Topics, Corpus string
	// Tokenizer names the generator's tokenizer (tokenize.New): recorded,
	// and it counts the packed context of traces.
	Tokenizer    string
	RunFormat    string         // "", auto, trec, jsonl or json
	StageCutoffs map[string]int // traces: each stage's cutoff
	// SliceBy, MinSlice, Top and the statistics' settings are Config's;
	// the counts must be positive, Level within (0, 1). Interval and
	// Correction are stats' names ("": percentile, holm).
	SliceBy                                  []string
	MinSlice, Top, Resamples, Randomizations int
	Seed                                     uint64
	Level                                    float64
	Interval, Correction                     string
	AllowMismatch                            []string // frozen fields allowed to differ (manifest.CheckField)
	FailOn                                   []string // gate rules (ParseRule)
	FailOnSignificant                        bool
	GateSlices                               []string
	// Quality names the metric whose mean is a traced system's quality
	// (Config.Quality); PriceIn and PriceOut, per million input and output
	// tokens, price each traced query (both 0: not priced; they need the
	// Tokenizer).
	Quality           string
	PriceIn, PriceOut float64
	// Format is the output's (Output.Format): a shard's partial result
	// (Sources.Keep) is written for Merge, as "json" only.
	Format string
}

// Sources are what a Request compares beyond its settings: the systems
// and how to read them, and how the result is marked.
type Sources struct {
	// Files opens the judgments (Files.Keep leaves a shard's other queries
	// out, shard.Selection.Read), the topics and the corpus.
	Files eval.Files
	// Systems are the base then the candidates as systems.Open takes them
	// (PATH or NAME=PATH; "-" reads Stdin): runs, saved eval results or
	// traces.
	Systems []string
	Stdin   io.Reader
	// Traces returns the readers of trace files, foreign formats mapped
	// over the corpus read (traceimport.Readers); nil reads none.
	Traces func(*corpus.Corpus) ([]systems.TraceReader, error)
	// Mapping, Version, Keep and Shard are Given's.
	Mapping func(path string) *traceimport.Manifest
	Version string
	Keep    func(query string) bool
	Shard   *manifest.Shard
	// Opened, when not nil, is called once the judgments are read, before
	// any other file is: a command tells there what Like set.
	Opened func(*eval.Evaluation)
}

// Compare makes the comparison the request and cfg (Config) ask for:
// it reads the judgments (Open), the topics, corpus and tokenizer
// (Given), then the systems, and compares them (Run). It returns the
// result and the reasons the gate failed. Every file it opened is closed
// when it returns.
func (s Request) Compare(cfg Config, src Sources) (*Result, []string, error) {
	if src.Keep != nil && s.Format != "json" {
		return nil, nil, &diag.OptionError{Option: "shard", Msg: "writes a partial comparison for ragstat merge: give {format} json"}
	}
	s.Confidence = s.Level // the level of every interval, the PPI++ ones included
	ev, err := s.Open(src.Files)
	if err != nil {
		return nil, nil, err
	}
	defer ev.File.Close()
	if src.Opened != nil {
		src.Opened(ev)
	}
	g, err := s.Given(ev, src.Files)
	if err != nil {
		return nil, nil, err
	}
	defer g.Close()
	g.Mapping, g.Version, g.Keep, g.Shard = src.Mapping, src.Version, src.Keep, src.Shard
	g.Correction, g.Agreement, g.Judges = ev.Correction, ev.Agreement, ev.Labelled.Models()
	var readers []systems.TraceReader
	if src.Traces != nil {
		if readers, err = src.Traces(g.Corpus); err != nil {
			return nil, nil, err
		}
	}
	sys, err := systems.Open(src.Systems, src.Stdin, systems.Options{Traces: readers})
	defer systems.Close(sys)
	if err != nil {
		return nil, nil, err
	}
	res, reasons, err := Run(g, sys, cfg)
	if err == nil {
		res.Notes = slices.Concat(ev.LabelNotes, res.Notes)
	}
	return res, reasons, err
}

// errBounds refuses the unjudged policy bounds, whose two values a query
// no comparison can take.
var errBounds = &diag.OptionError{Scope: "policy", Option: "unjudged", Value: string(eval.UnjudgedBounds),
	Msg: "gives [low, high] per query; compare needs one value: use nonrelevant or skip"}

// Config checks the request and returns the comparison they ask for.
func (s Request) Config() (Config, error) {
	switch {
	case s.Unjudged == string(eval.UnjudgedBounds):
		return Config{}, errBounds
	case s.Topics == "" && len(s.SliceBy) > 0:
		return Config{}, &diag.OptionError{Scope: "policy", Option: "slice_by", Msg: "needs {topics}"}
	case s.Top < 1 || s.MinSlice < 1 || s.Resamples < 1 || s.Randomizations < 1:
		return Config{}, &diag.OptionError{Scope: "policy", Msg: "{top}, {min_slice}, {resamples} and {randomizations} must be positive"}
	case !(s.Level > 0 && s.Level < 1):
		return Config{}, &diag.OptionError{Scope: "policy", Option: "level", Value: fmt.Sprintf("%g", s.Level), Msg: "must lie strictly between 0 and 1"}
	}
	cfg := Config{SliceBy: s.SliceBy, AllowMismatch: s.AllowMismatch, FailOnSignificant: s.FailOnSignificant, GateSlices: s.GateSlices, Quality: s.Quality,
		Options: Options{Top: s.Top, MinSlice: s.MinSlice, Stats: stats.Options{Level: s.Level, Resamples: s.Resamples,
			Randomizations: s.Randomizations, Interval: stats.IntervalMethod(s.Interval), Seed: s.Seed}}}
	if s.Correction != "" {
		var err error
		if cfg.Correction, err = stats.ParseCorrection(s.Correction); err != nil {
			return cfg, &diag.OptionError{Scope: "policy", Option: "correction", Err: err}
		}
	}
	for _, f := range s.AllowMismatch {
		if err := manifest.CheckField(f); err != nil {
			return cfg, &diag.OptionError{Scope: "policy", Option: "allow_mismatch", Err: err}
		}
	}
	for _, r := range s.FailOn {
		rule, err := ParseRule(r)
		if err != nil {
			return cfg, err
		}
		cfg.FailOn = append(cfg.FailOn, rule)
	}
	return cfg, nil
}

// Given reads the topics and the corpus and makes the tokenizer the
// request names, for the systems to be scored by ev. Given.Close closes
// the files it opened (on error, Given closes them).
func (s Request) Given(ev *eval.Evaluation, files eval.Files) (g Given, err error) {
	runFormat, _ := input.ParseFormat(s.RunFormat)
	g = Given{Evaluator: ev.Evaluator, Judgments: ev.File, TokenizerName: s.Tokenizer, RunFormat: runFormat,
		NumericIDs: s.NumericIDs, Cutoffs: s.StageCutoffs}
	if s.PriceIn != 0 || s.PriceOut != 0 {
		g.Price = &analysis.Cost{Input: s.PriceIn, Output: s.PriceOut}
	}
	defer func() {
		if err != nil {
			g.Close()
		}
	}()
	if s.Topics != "" {
		if g.TopicsFile, err = files.Open(s.Topics); err != nil {
			return g, err
		}
		if g.Topics, err = topics.Read(g.TopicsFile); err != nil {
			return g, err
		}
	}
	if s.Corpus != "" {
		if g.CorpusFile, err = files.Open(s.Corpus); err != nil {
			return g, err
		}
		if g.Corpus, err = corpus.Read(g.CorpusFile); err != nil {
			return g, err
		}
	}
	if s.Tokenizer != "" {
		g.Tokenizer, err = tokenize.New(s.Tokenizer)
	}
	return g, err
}

// Close closes the topics and corpus files (not the judgments: they are
// the evaluation's).
func (g *Given) Close() {
	g.TopicsFile.Close()
	g.CorpusFile.Close()
}
