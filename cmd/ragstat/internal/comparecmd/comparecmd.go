// Package comparecmd is the body of ragstat compare: it reads the
// judgments, topics, corpus and systems the command line names, evaluates
// runs and traces, and compares them with package compare.
package comparecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// A Request describes a comparison as the command line gives it:
// the evaluation's settings, the files given beside the systems, the
// statistics and the gate. Errors about a setting are diag.OptionErrors
// naming it as an Option ("level", "slice_by").
type Request struct {
	settings.Eval
	// Topics is the topics file: query texts for the regressions, tags
	// and fields to slice by; traces need it. Corpus is the corpus
	// snapshot, recorded by digest (traces read item metadata from it).
	// NuggetAssignments names nuggetizer's assignments, whose retrieved
	// passages support a nugget file's facts (topics.Options).
	Topics, Corpus, NuggetAssignments string
	// Tokenizer names the generator's tokenizer (settings.Tokenizer): recorded,
	// and it counts the packed context of traces.
	Tokenizer    string
	RunFormat    string         // "", auto, trec, jsonl or json
	StageCutoffs map[string]int // traces: each stage's cutoff
	// SliceBy, MinSlice, Top and the statistics' settings are
	// compare.Config's;
	// the counts must be positive, Level within (0, 1). Interval and
	// Correction are stats' names ("": percentile, holm).
	SliceBy                                  []string
	MinSlice, Top, Resamples, Randomizations int
	Seed                                     uint64
	Level                                    float64
	Interval, Correction                     string
	AllowMismatch                            []string // frozen fields allowed to differ (eval.CheckFrozen)
	FailOn                                   []string // gate rules (compare.ParseRule)
	FailOnSignificant                        bool
	GateSlices                               []string
	// Quality names the metric whose mean is a traced system's quality
	// (compare.Config.Quality); PriceIn and PriceOut, per million input and output
	// tokens, price each traced query (both 0: not priced; they need the
	// Tokenizer).
	Quality           string
	PriceIn, PriceOut float64
	// Format is the output's: a shard's partial result (Sources.Keep) is
	// written for compare.Merge, as "json" only.
	Format string
}

// Sources are what a Request compares beyond its settings: the systems
// and how to read them, and how the result is marked.
type Sources struct {
	// Files opens the judgments (Files.Keep leaves a shard's other queries
	// out, shard.Selection.Read), the topics and the corpus.
	Files settings.Files
	// Systems are the base then the candidates as systems.Open takes them
	// (PATH or NAME=PATH; "-" reads Stdin): runs, saved eval results or
	// traces.
	Systems []string
	Stdin   io.Reader
	// Traces returns the readers of trace files, foreign formats mapped
	// over the corpus read (settings.Readers); nil reads none.
	Traces func(*corpus.Corpus) ([]systems.TraceReader, error)
	// Mapping, Version, Keep and Shard are Given's.
	Mapping func(path string) *traceimport.Manifest
	Version string
	Keep    func(query string) bool
	Shard   *eval.Shard
	// Opened, when not nil, is called once the judgments are read, before
	// any other file is: a command tells there what Like set.
	Opened func(*settings.Evaluation)
}

// Compare makes the comparison the request and cfg (compare.Config) ask for:
// it reads the judgments (Open), the topics, corpus and tokenizer
// (Given), then the systems, and compares them (Run). It returns the
// result and the reasons the gate failed. Every file it opened is closed
// when it returns.
func (s Request) Compare(cfg compare.Config, src Sources) (*compare.Result, []string, error) {
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
	res, reasons, err := g.run(sys, cfg)
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
func (s Request) Config() (compare.Config, error) {
	switch {
	case s.Unjudged == string(eval.UnjudgedBounds):
		return compare.Config{}, errBounds
	case s.Topics == "" && len(s.SliceBy) > 0:
		return compare.Config{}, &diag.OptionError{Scope: "policy", Option: "slice_by", Msg: "needs {topics}"}
	case s.Topics == "" && s.NuggetAssignments != "":
		return compare.Config{}, &diag.OptionError{Option: "nugget_assignments", Msg: "goes with {topics}: its passages support the topics' facts"}
	case s.Top < 1 || s.MinSlice < 1 || s.Resamples < 1 || s.Randomizations < 1:
		return compare.Config{}, &diag.OptionError{Scope: "policy", Msg: "{top}, {min_slice}, {resamples} and {randomizations} must be positive"}
	case !(s.Level > 0 && s.Level < 1):
		return compare.Config{}, &diag.OptionError{Scope: "policy", Option: "level", Value: fmt.Sprintf("%g", s.Level), Msg: "must lie strictly between 0 and 1"}
	}
	cfg := compare.Config{Names: flagname.Flag, SliceBy: s.SliceBy, AllowMismatch: s.AllowMismatch, FailOnSignificant: s.FailOnSignificant, GateSlices: s.GateSlices, Quality: s.Quality,
		Options: compare.Options{Top: s.Top, MinSlice: s.MinSlice, Stats: stats.Options{Level: s.Level, Resamples: s.Resamples,
			Randomizations: s.Randomizations, Interval: stats.IntervalMethod(s.Interval), Seed: s.Seed}}}
	if s.Correction != "" {
		var err error
		if cfg.Correction, err = stats.ParseCorrection(s.Correction); err != nil {
			return cfg, &diag.OptionError{Scope: "policy", Option: "correction", Err: err}
		}
	}
	for _, f := range s.AllowMismatch {
		if err := eval.CheckFrozen(f); err != nil {
			return cfg, &diag.OptionError{Scope: "policy", Option: "allow_mismatch", Err: err}
		}
	}
	for _, r := range s.FailOn {
		rule, err := compare.ParseRule(r)
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
func (s Request) Given(ev *settings.Evaluation, files settings.Files) (g Given, err error) {
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
		var topt topics.Options
		if s.NuggetAssignments != "" {
			if g.NuggetsFile, err = files.Open(s.NuggetAssignments); err != nil {
				return g, err
			}
			if topt.Assignments, err = topics.ReadAssignments(g.NuggetsFile); err != nil {
				return g, err
			}
			topt.AssignmentsFile = g.NuggetsFile.Name
		}
		if g.TopicsFile, err = files.Open(s.Topics); err != nil {
			return g, err
		}
		g.unsupported = settings.NuggetSupport(g.TopicsFile, topt)
		if g.Topics, err = topics.ReadWith(g.TopicsFile, topt); err != nil {
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
	g.Tokenizer, err = settings.Tokenizer(s.Tokenizer)
	return g, err
}

// Close closes the topics, nugget assignments and corpus files (not the
// judgments: they are the evaluation's).
func (g *Given) Close() {
	g.TopicsFile.Close()
	g.NuggetsFile.Close()
	g.CorpusFile.Close()
}

// Given is what the systems of a comparison are scored against and
// recorded with: the evaluator (judgments, policy, metrics) and the files
// given beside the systems.
type Given struct {
	Evaluator *eval.Evaluator
	Judgments *input.File // the judgments file the evaluator read, for its digest; nil when none
	// Topics give query texts and slices; traces need them. TopicsFile
	// is their file, for its digest (nil when not given).
	Topics     *topics.Set
	TopicsFile *input.File
	// NuggetsFile is the nugget assignments' file (nil when not given),
	// recorded by digest; unsupported refuses traces a nugget file
	// without them (settings.NuggetSupport).
	NuggetsFile *input.File
	unsupported error
	// Corpus is the corpus snapshot (may be nil): traces read item
	// metadata from it; it is recorded by digest.
	Corpus     *corpus.Corpus
	CorpusFile *input.File
	// Tokenizer counts the packed context's tokens of traces (may be
	// nil); TokenizerName is recorded in the manifest.
	Tokenizer     stages.Tokenizer
	TokenizerName string
	RunFormat     input.Format   // the format of runs; "" detects it
	NumericIDs    bool           // runs: JSON ids written as integers are accepted
	Cutoffs       map[string]int // traces: each stage's cutoff
	// Price per million input and output tokens prices each traced
	// query (nil: not priced); it needs the Tokenizer.
	Price *analysis.Cost
	// Mapping returns how a trace file in another format was mapped (its
	// import manifest), to be recorded; nil, or a nil result, for none.
	Mapping func(path string) *traceimport.Manifest
	Version string // the ragstat version, for the manifest
	// Keep, when set, compares one shard of a split by query: the queries
	// it accepts (the evaluator's judgments hold those alone), and run
	// returns a partial result for compare.Merge, with no gate. Shard is the
	// shard's record, its judged positions filled in.
	Keep  func(query string) bool
	Shard *eval.Shard
	// Correction, under the label choice ppi, corrects every mean
	// difference with the human audit (compare.PPIDiff); nil otherwise.
	// Agreement is how the judgments' LLM labels agree with people's
	// grades (nil: no pair carries both).
	Correction *eval.Correction
	Agreement  *eval.Agreement
	// Judges are the models that gave the judgments' LLM labels: a traced
	// system whose configuration names one is warned of
	// (report.JudgeWarnings).
	Judges []string
	// only, when set, reads the queries it accepts alone (the audited
	// ones, under people's grades).
	only func(query string) bool
}

// rankingDepth is how much of each list the regressions view shows.
const rankingDepth = 10

// run compares the systems, the first the base: runs are evaluated now
// (noting where their judged items sit), a saved eval result gives all its
// runs (or the one NAME= picks), traces give every system stage by stage.
// It refuses inputs whose frozen fields differ, notes configuration
// differences, aligns the systems on their common metrics and queries,
// computes the statistics and records the manifest. It returns the result
// and the reasons the gate failed, one a line (none: it passed).
//
// Traces are refused without topics (what each query requires).
func (g *Given) run(sys []*systems.Input, cfg compare.Config) (*compare.Result, []string, error) {
	for _, in := range sys {
		if in.Kind == systems.Traces && g.Topics == nil {
			return nil, nil, &diag.OptionError{Value: in.Path, Msg: ": comparing traces needs {topics}: what each query requires"}
		}
		if in.Kind == systems.Traces && g.unsupported != nil {
			return nil, nil, g.unsupported
		}
	}
	ref, err := g.reference(cfg.AllowMismatch)
	if err != nil {
		return nil, nil, err
	}
	sides, err := g.sides(ref, sys)
	if err != nil {
		return nil, nil, err
	}
	cfg.Price = g.Price
	if g.Keep != nil {
		traced := make([]bool, len(sys))
		for i, in := range sys {
			traced[i] = in.Kind == systems.Traces
		}
		res, err := compare.Part(ref, sides, traced, g.Topics, cfg, g.Shard)
		return res, nil, err
	}
	if g.Correction != nil {
		if cfg.Human, err = g.humanValues(ref, sys); err != nil {
			return nil, nil, err
		}
		cfg.PPI = g.Correction
	}
	cfg.Agreement = g.Agreement
	for _, side := range sides {
		if side.Config != nil {
			for _, w := range report.JudgeWarnings(g.Judges, side.Name, []string{string(side.Config)}) {
				cfg.Warnings = append(cfg.Warnings, "warning: "+w)
			}
		}
	}
	return compare.Run(ref, sides, g.Topics, cfg)
}

// humanValues reads the systems again under people's grades, on the
// audited queries alone (the correction's evaluator), for the PPI++
// differences: system, metric, query. Saved results hold one reading and
// are refused.
func (g *Given) humanValues(ref *eval.Manifest, sys []*systems.Input) (map[string]map[string]map[string]float64, error) {
	for _, in := range sys {
		if in.Kind == systems.Result {
			return nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(eval.LabelsPPI),
				Msg: diag.Literal(fmt.Sprintf("reads every system under both the LLM-filled labels and people's grades: %s is a saved result, which holds one reading; give its run", in.Path))}
		}
	}
	c := g.Correction
	hg := *g
	hg.Evaluator, hg.Correction, hg.only = c.Human, nil, c.Audited
	sides, err := hg.sides(&eval.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics}, sys)
	if err != nil {
		return nil, fmt.Errorf("labels ppi: the audited queries under people's grades: %w", err)
	}
	out := map[string]map[string]map[string]float64{}
	for _, s := range sides {
		byMetric := map[string]map[string]float64{}
		for m, name := range s.Metrics {
			byQuery := map[string]float64{}
			for q, id := range s.Queries {
				byQuery[id] = s.Values[m][q]
			}
			byMetric[name] = byQuery
		}
		out[s.Name] = byMetric
	}
	return out, nil
}

// reference is the manifest of the comparison: the judgments, topics and
// corpus given, the evaluator's policy and metrics.
func (g *Given) reference(allowed []string) (*eval.Manifest, error) {
	ev := g.Evaluator
	m := &eval.Manifest{Kind: eval.KindCompare, Version: g.Version, Policy: ev.Policy(),
		Tokenizer: g.TokenizerName, Allowed: allowed}
	for _, mt := range ev.Metrics() {
		m.Metrics = append(m.Metrics, mt.Name())
	}
	var err error
	if g.Judgments != nil {
		if m.Judgments, err = record("judgments", g.Judgments); err != nil {
			return nil, err
		}
	}
	if g.TopicsFile != nil {
		if m.Topics, err = record("topics", g.TopicsFile); err != nil {
			return nil, err
		}
	}
	if g.CorpusFile != nil {
		if m.Corpus, err = record("corpus", g.CorpusFile); err != nil {
			return nil, err
		}
	}
	if g.NuggetsFile != nil {
		f, err := record("nugget_assignments", g.NuggetsFile)
		if err != nil {
			return nil, err
		}
		m.Inputs = append(m.Inputs, *f)
	}
	return m, nil
}

func record(role string, f *input.File) (*eval.FileRecord, error) {
	sum, err := f.SHA256()
	return &eval.FileRecord{Role: role, Path: f.Name, SHA256: sum}, err
}

// sides reads every input in turn.
func (g *Given) sides(ref *eval.Manifest, sys []*systems.Input) ([]*compare.Side, error) {
	var out []*compare.Side
	var names systems.Names
	for i, in := range sys {
		got, err := g.read(ref, in, i)
		if err != nil {
			return nil, err
		}
		for _, s := range got {
			s.Input = i
			if err := names.Claim(s.Name, in.File.Name); err != nil {
				return nil, err
			}
		}
		out = append(out, got...)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("compare needs a base and at least one candidate; got %d system", len(out))
	}
	return out, nil
}

func (g *Given) read(ref *eval.Manifest, in *systems.Input, input int) ([]*compare.Side, error) {
	if in.Kind == systems.Traces {
		return g.traceSides(ref, in, input)
	}
	file, err := record(string(in.Kind), in.File)
	if err != nil {
		return nil, err
	}
	if in.Kind == systems.Result {
		ref.Inputs = append(ref.Inputs, *file)
		sides, err := savedSides(in.File, in.Name)
		if err == nil && g.Keep != nil {
			for _, s := range sides {
				s.Keep(g.Keep)
			}
		}
		return sides, err
	}
	file.System = in.System()
	ref.Inputs = append(ref.Inputs, *file)
	s, err := g.evaluate(in)
	if err != nil {
		return nil, err
	}
	s.Manifest = &eval.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics,
		Queries: eval.DigestQueries(s.Queries)}
	if g.Shard != nil {
		for _, q := range s.Queries {
			s.Positions = append(s.Positions, g.Shard.Positions[q])
		}
	}
	return []*compare.Side{s}, nil
}

// savedSides reads a saved eval result; name, when given, picks one run.
func savedSides(f *input.File, name string) ([]*compare.Side, error) {
	saved, err := report.Read(f)
	if err != nil {
		return nil, err
	}
	var out []*compare.Side
	for _, res := range saved.Results {
		if name != "" && res.Name != name {
			continue
		}
		s, err := compare.FromResult(res, f.Name)
		if err != nil {
			return nil, err
		}
		m := *saved.Manifest
		m.Queries = eval.DigestQueries(s.Queries)
		s.Manifest = &m
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no run named %q in this result", f.Name, name)
	}
	return out, nil
}

// evaluate scores a run now, noting where its judged items sit in the
// list as evaluated, in the same pass.
func (g *Given) evaluate(in *systems.Input) (*compare.Side, error) {
	ev := g.Evaluator
	if ev.Policy().Unjudged == eval.UnjudgedBounds {
		return nil, errBounds
	}
	var mu sync.Mutex
	rankings := map[string]compare.Ranking{}
	res, err := ev.RunVisit(in.System(), in.File, runs.Options{Format: g.RunFormat, NumericIDs: g.NumericIDs}, func(r *runs.Ranking) {
		q := ev.Judgments().Query(r.Query)
		if q == nil {
			return
		}
		rk := rankingOf(ev.AsEvaluated(r.Query, r.Items), q, ev.Policy().MinGrade, rankingDepth)
		mu.Lock()
		defer mu.Unlock()
		rankings[strings.Clone(r.Query)] = rk
	})
	if err != nil {
		return nil, err
	}
	s, err := compare.FromResult(res, in.File.Name)
	if err != nil {
		return nil, err
	}
	s.Rankings = rankings
	return s, nil
}

// traceSides evaluates every system of a trace file (input) stage by
// stage: each becomes a side whose metrics are "stage/metric" (and
// "stage/facts", the required-fact coverage, where every query has
// facts). Under Keep, the sides carry what compare.Merge sums across
// shards.
func (g *Given) traceSides(ref *eval.Manifest, in *systems.Input, input int) ([]*compare.Side, error) {
	if g.Topics == nil {
		return nil, fmt.Errorf("comparing traces needs topics: what each query requires")
	}
	ev := g.Evaluator
	only := g.Keep
	if only == nil {
		only = g.only
	}
	opt := stages.Options{Policy: ev.Policy(), Metrics: ev.Metrics(), Cutoffs: g.Cutoffs,
		Truncated: stages.TruncatedError, Tokenizer: g.Tokenizer, Shard: only}
	if g.Price != nil && g.Keep != nil {
		return nil, fmt.Errorf("%s: the cost of traces does not merge across shards yet: compare priced traces in one process", in.File.Name)
	}
	if g.Price != nil {
		a := stages.DefaultAnalysisOptions()
		a.Price, a.CostOnly = g.Price, true
		opt.Analyses = &a
	}
	st := stages.Input{Judgments: ev.Judgments(), Topics: g.Topics, Corpus: g.Corpus}
	var mu sync.Mutex
	unanswerable, latencies := map[string][]string{}, map[string][]float64{}
	res, err := stages.Evaluate(st, func(fn func(*trace.Trace) error) error {
		return in.Scan(func(t *trace.Trace) error {
			if only != nil && !only(t.Query) {
				return fn(t) // another shard's (or not audited): stages passes it over
			}
			tp := g.Topics.Get(t.Query)
			ms, timed := endToEnd(t)
			mu.Lock()
			if tp != nil && !tp.Answerable {
				unanswerable[t.System] = append(unanswerable[t.System], strings.Clone(t.Query))
			}
			if timed {
				latencies[t.System] = append(latencies[t.System], ms)
			}
			mu.Unlock()
			return fn(t)
		})
	}, opt)
	if err != nil {
		return nil, err
	}
	var out []*compare.Side
	for _, sys := range res.Systems {
		s := fromStages(sys, in.Name)
		s.Input, s.Latencies = input, latencies[sys.Name]
		s.Unanswerable = slices.Compact(slices.Sorted(slices.Values(unanswerable[sys.Name])))
		s.Manifest = &eval.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics, Queries: eval.DigestQueries(s.Queries)}
		if p := sys.Partial; p != nil {
			s.First = compare.Place{File: p.First.File, Line: p.First.Line}
			for _, st := range sys.Stages {
				s.Stages = append(s.Stages, st.Name)
			}
			s.Order = stages.Statuses(s.Stages)
			for _, q := range s.Queries {
				s.Positions = append(s.Positions, res.Positions[q])
			}
			for _, c := range p.Configs {
				if len(sys.Configs) > 0 && c.Config == sys.Configs[0] {
					s.ConfigAt = compare.Place{File: c.File, Line: c.Line}
				}
			}
		}
		file, err := record("trace", in.File)
		if err != nil {
			return nil, err
		}
		file.System = s.Name
		if g.Mapping != nil {
			if man := g.Mapping(in.File.Name); man != nil {
				file.Mapping = man
			}
		}
		ref.Inputs = append(ref.Inputs, *file)
		out = append(out, s)
	}
	return out, nil
}

// fromStages lays a traced system's per-stage rows out as one side whose
// metrics are "stage/metric", plus "stage/facts" (required-fact coverage)
// when every query has facts; name, when given, renames the system.
func fromStages(sys *stages.System, name string) *compare.Side {
	s := &compare.Side{Name: sys.Name, Loss: &compare.Loss{System: sys.Name, Evidence: steps(sys.Loss.Steps), Facts: steps(sys.FactLoss.Steps)}}
	if name != "" {
		s.Name, s.Loss.System = name, name
	}
	if len(sys.Configs) > 0 {
		s.Config = json.RawMessage(sys.Configs[0])
	}
	if sys.Analyses != nil && sys.Analyses.Cost != nil {
		s.Cost = &compare.Cost{PerQuery: sys.Analyses.Cost.PerQuery, Queries: sys.Analyses.Cost.Queries}
	}
	for _, row := range sys.Stages[0].Eval.Rows {
		s.Queries = append(s.Queries, row.Query)
	}
	for _, st := range sys.Stages {
		values := map[string][]float64{}
		for _, row := range st.Eval.Rows {
			for i, m := range st.Eval.Metrics {
				values[m.Name()] = append(values[m.Name()], row.Values[i])
			}
		}
		for _, m := range st.Eval.Metrics {
			s.Metrics = append(s.Metrics, st.Name+"/"+m.Name())
			s.Values = append(s.Values, values[m.Name()])
		}
	}
	withFacts(s, sys)
	return s
}

// steps are a waterfall's steps as a comparison records them.
func steps(ss []stages.Step) []compare.Step {
	out := make([]compare.Step, len(ss))
	for i, st := range ss {
		out[i] = compare.Step{Status: st.Status, Count: st.Count}
	}
	return out
}

// withFacts adds each stage's per-query required-fact coverage to s.
func withFacts(s *compare.Side, sys *stages.System) {
	byQuery := map[string]stages.QueryFacts{}
	for _, qf := range sys.Facts {
		byQuery[qf.Query] = qf
	}
	for _, q := range s.Queries {
		if _, ok := byQuery[q]; !ok {
			return // facts apply to some queries only: not a per-query table
		}
	}
	for i, st := range sys.Stages {
		col := make([]float64, len(s.Queries))
		for k, q := range s.Queries {
			qf := byQuery[q]
			col[k] = float64(qf.Supported[i]) / float64(qf.Facts)
		}
		s.Metrics = append(s.Metrics, st.Name+"/facts")
		s.Values = append(s.Values, col)
		s.Facts++
	}
}

// endToEnd is a trace's end-to-end latency: the sum of its recorded stage
// and generation latencies, in a fixed order so that the sum does not
// depend on map order; false when it records none.
func endToEnd(t *trace.Trace) (float64, bool) {
	ms := 0.0
	for _, k := range slices.Sorted(maps.Keys(t.Latency)) {
		ms += t.Latency[k]
	}
	return ms, len(t.Latency) > 0
}
