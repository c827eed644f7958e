package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/manifest"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

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
	// Corpus is the corpus snapshot (may be nil): traces read item
	// metadata from it; it is recorded by digest.
	Corpus     *corpus.Corpus
	CorpusFile *input.File
	// Tokenizer counts the packed context's tokens of traces (may be
	// nil); TokenizerName is recorded in the manifest.
	Tokenizer     stages.Tokenizer
	TokenizerName string
	RunFormat     runs.Format    // the format of runs; "" detects it
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
	// it accepts (the evaluator's judgments hold those alone), and Run
	// returns a partial result for Merge, with no gate. Shard is the
	// shard's record, its judged positions filled in.
	Keep  func(query string) bool
	Shard *manifest.Shard
	// Correction, under the label choice ppi, corrects every mean
	// difference with the human audit (PPIDiff); nil otherwise. Agreement
	// is how the judgments' LLM labels agree with people's grades (nil:
	// no pair carries both).
	Correction *eval.Correction
	Agreement  *eval.Agreement
	// Judges are the models that gave the judgments' LLM labels: a traced
	// system whose configuration names one is warned of
	// (stages.JudgeWarnings).
	Judges []string
	// only, when set, reads the queries it accepts alone (the audited
	// ones, under people's grades).
	only func(query string) bool
}

// Config is how a comparison is made and gated.
type Config struct {
	Options
	// SliceBy lists the topic fields to slice by (tag, tag:PREFIX,
	// family, answerable); empty means tag when topics are given.
	SliceBy []string
	// AllowMismatch lists the frozen fields allowed to differ between
	// the inputs (manifest.Frozen).
	AllowMismatch []string
	// FailOn are the gate's rules; FailOnSignificant also fails it when a
	// metric is significantly worse on the whole set or a GateSlices slice.
	FailOn            []Rule
	FailOnSignificant bool
	GateSlices        []string
	// Quality names the metric whose mean is a traced system's quality
	// beside its cost and latency (Frontier); "" picks the first metric of
	// the last stage.
	Quality string
	// correction and human are the label choice ppi's: the audit, and the
	// systems' values under people's grades on the audited queries.
	correction *eval.Correction
	human      human
	agreement  *eval.Agreement
	warnings   []string
}

// rankingDepth is how much of each list the regressions view shows.
const rankingDepth = 10

// Run compares the systems, the first the base: runs are evaluated now
// (noting where their judged items sit), a saved eval result gives all its
// runs (or the one NAME= picks), traces give every system stage by stage.
// It refuses inputs whose frozen fields differ, notes configuration
// differences, aligns the systems on their common metrics and queries,
// computes the statistics and records the manifest. It returns the result
// and the reasons the gate failed, one a line (none: it passed).
//
// Traces are refused without topics (what each query requires).
func Run(g Given, sys []*systems.Input, cfg Config) (*Result, []string, error) {
	for _, in := range sys {
		if in.Kind == systems.Traces && g.Topics == nil {
			return nil, nil, &diag.OptionError{Value: in.Path, Msg: ": comparing traces needs {topics}: what each query requires"}
		}
	}
	for _, f := range cfg.AllowMismatch {
		if err := manifest.CheckField(f); err != nil {
			return nil, nil, err
		}
	}
	if g.Topics == nil && len(cfg.SliceBy) > 0 {
		return nil, nil, fmt.Errorf("slicing needs topics")
	}
	ref, err := g.reference(cfg.AllowMismatch)
	if err != nil {
		return nil, nil, err
	}
	sides, err := g.sides(ref, sys)
	if err != nil {
		return nil, nil, err
	}
	if g.Keep != nil {
		res, err := g.partial(ref, sides, cfg)
		return res, nil, err
	}
	if g.Correction != nil {
		if cfg.human, err = g.humanValues(ref, sys); err != nil {
			return nil, nil, err
		}
		cfg.correction = g.Correction
	}
	cfg.agreement = g.Agreement
	for _, side := range sides {
		if side.Config != nil {
			for _, w := range stages.JudgeWarnings(g.Judges, side.Name, []string{string(side.Config)}) {
				cfg.warnings = append(cfg.warnings, "warning: "+w)
			}
		}
	}
	return finish(ref, sides, g.Topics, cfg, g.Price, g.TokenizerName)
}

// finish compares the sides as read: it aligns them (prepare), computes
// the statistics, the gate and the frontier of traced sides.
func finish(ref *manifest.Manifest, sides []*Side, tps *topics.Set, cfg Config, price *analysis.Cost, tokenizer string) (*Result, []string, error) {
	table, opt, notes, err := prepare(ref, sides, tps, cfg)
	if err != nil {
		return nil, nil, err
	}
	res, err := Compare(table, opt)
	if err != nil {
		return nil, nil, err
	}
	res.Manifest, res.Notes = ref, slices.Concat(notes, cfg.warnings, res.Notes)
	if cfg.correction != nil {
		if res.PPI, err = ppiDiffs(table, cfg.human, cfg.correction, opt, stats.Correction(res.Settings.Correction)); err != nil {
			return nil, nil, err
		}
	}
	if cfg.agreement != nil {
		a := *cfg.agreement
		if cfg.correction != nil {
			a.Rankings = rankAgreements(table, cfg.human, cfg.correction)
		}
		res.Agreement = &a
	}
	for _, s := range sides {
		if s.Loss != nil {
			res.Losses = append(res.Losses, *s.Loss)
		}
	}
	reasons, err := res.Gate(cfg.FailOn, cfg.FailOnSignificant, cfg.GateSlices)
	if err != nil {
		return nil, nil, err
	}
	if res.GatePower, err = res.Power(cfg.FailOn); err != nil {
		return nil, nil, err
	}
	if res.Frontier, err = res.frontier(sides, cfg.Quality, price, tokenizer); err != nil {
		return nil, nil, err
	}
	return res, reasons, nil
}

// prepare checks the sides' frozen fields against ref (the comparison's
// manifest, filled in), aligns them and slices the queries by topics (nil:
// no slices). It returns the table to compare, the options with the
// slices, and the notes.
func prepare(ref *manifest.Manifest, sides []*Side, tps *topics.Set, cfg Config) (*Table, Options, []string, error) {
	opt := cfg.Options
	notes, err := Check(ref, sides, cfg.AllowMismatch)
	if err != nil {
		return nil, opt, nil, err
	}
	ref.Policy = sides[0].Manifest.Policy
	configs, err := ConfigNotes(sides)
	if err != nil {
		return nil, opt, nil, err
	}
	notes = append(notes, configs...)
	table, dropped := Align(sides)
	if tps != nil {
		by := cfg.SliceBy
		if len(by) == 0 {
			by = []string{"tag"}
		}
		if opt.Slices, err = SlicesFrom(table.Queries, tps, by); err != nil {
			return nil, opt, nil, err
		}
		for _, q := range table.Queries {
			table.Text = append(table.Text, tps.Get(q).Text)
		}
	}
	ref.Kind, ref.Metrics, ref.Queries = manifest.KindCompare, table.Metrics, manifest.Queries(table.Queries)
	return table, opt, append(notes, dropped...), nil
}

// reference is the manifest of the comparison: the judgments, topics and
// corpus given, the evaluator's policy and metrics.
func (g *Given) reference(allowed []string) (*manifest.Manifest, error) {
	ev := g.Evaluator
	m := &manifest.Manifest{Kind: manifest.KindCompare, Version: g.Version, Policy: ev.Policy(),
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
	return m, nil
}

func record(role string, f *input.File) (*manifest.File, error) {
	sum, err := f.SHA256()
	return &manifest.File{Role: role, Path: f.Name, SHA256: sum}, err
}

// sides reads every input in turn.
func (g *Given) sides(ref *manifest.Manifest, sys []*systems.Input) ([]*Side, error) {
	var out []*Side
	var names systems.Names
	for _, in := range sys {
		got, err := g.read(ref, in)
		if err != nil {
			return nil, err
		}
		for _, s := range got {
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

func (g *Given) read(ref *manifest.Manifest, in *systems.Input) ([]*Side, error) {
	if in.Kind == systems.Traces {
		return g.traceSides(ref, in)
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
				s.keep(g.Keep)
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
	s.Manifest = &manifest.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics,
		Queries: manifest.Queries(s.Queries)}
	if g.Shard != nil {
		for _, q := range s.Queries {
			s.Positions = append(s.Positions, g.Shard.Positions[q])
		}
	}
	return []*Side{s}, nil
}

// savedSides reads a saved eval result; name, when given, picks one run.
func savedSides(f *input.File, name string) ([]*Side, error) {
	saved, err := report.Read(f)
	if err != nil {
		return nil, err
	}
	var out []*Side
	for _, res := range saved.Results {
		if name != "" && res.Name != name {
			continue
		}
		s, err := FromResult(res, f.Name)
		if err != nil {
			return nil, err
		}
		m := *saved.Manifest
		m.Queries = manifest.Queries(s.Queries)
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
func (g *Given) evaluate(in *systems.Input) (*Side, error) {
	ev := g.Evaluator
	if ev.Policy().Unjudged == eval.UnjudgedBounds {
		return nil, errBounds
	}
	var mu sync.Mutex
	rankings := map[string]Ranking{}
	res, err := ev.RunVisit(in.System(), in.File, runs.Options{Format: g.RunFormat, NumericIDs: g.NumericIDs}, func(r *runs.Ranking) {
		q := ev.Judgments().Query(r.Query)
		if q == nil {
			return
		}
		rk := RankingOf(ev.AsEvaluated(r.Query, r.Items), q, ev.Policy().MinGrade, rankingDepth)
		mu.Lock()
		defer mu.Unlock()
		rankings[strings.Clone(r.Query)] = rk
	})
	if err != nil {
		return nil, err
	}
	s, err := FromResult(res, in.File.Name)
	if err != nil {
		return nil, err
	}
	s.Rankings = rankings
	return s, nil
}

// traceSides evaluates every system of a trace file stage by stage: each
// becomes a side whose metrics are "stage/metric" (and "stage/facts", the
// required-fact coverage, where topics have facts). Under Keep, the sides
// carry the shard's partial stages result (Side.Traces) for Merge.
func (g *Given) traceSides(ref *manifest.Manifest, in *systems.Input) ([]*Side, error) {
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
	traced := &PartialTraces{Name: in.Name, Unanswerable: map[string][]string{}, Latencies: map[string][]float64{}}
	res, err := stages.Evaluate(st, func(fn func(*trace.Trace) error) error {
		return in.Scan(func(t *trace.Trace) error {
			if only != nil && !only(t.Query) {
				return fn(t) // another shard's (or not audited): stages passes it over
			}
			tp := g.Topics.Get(t.Query)
			ms, timed := endToEnd(t)
			mu.Lock()
			if tp != nil && !tp.Answerable {
				traced.Unanswerable[t.System] = append(traced.Unanswerable[t.System], strings.Clone(t.Query))
			}
			if timed {
				traced.Latencies[t.System] = append(traced.Latencies[t.System], ms)
			}
			mu.Unlock()
			return fn(t)
		})
	}, opt)
	if err != nil {
		return nil, err
	}
	traced.Manifest = &manifest.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics}
	out := traced.sides(res)
	for _, s := range out {
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
	}
	configs(ref, out)
	if g.Keep != nil && len(out) > 0 {
		var b bytes.Buffer
		sh := manifest.Shard{Positions: res.Positions}
		if g.Shard != nil {
			sh.Index, sh.Count, sh.Hash = g.Shard.Index, g.Shard.Count, g.Shard.Hash
		}
		rep := &report.Stages{Tool: "ragstat", Version: g.Version, Policy: ev.Policy(), Result: res, Shard: &sh}
		if err := report.RenderStages(&b, "json", rep); err != nil {
			return nil, err
		}
		traced.Stages = b.Bytes()
		out[0].Traces = traced
	}
	return out, nil
}

// sides lays every system of a stages result out as a side, with its
// traces' latencies and its unanswerable queries left out.
func (p *PartialTraces) sides(res *stages.Result) []*Side {
	var out []*Side
	for _, sys := range res.Systems {
		s := FromStages(sys, p.Name)
		s.Latencies = p.Latencies[sys.Name]
		if qs := slices.Clone(p.Unanswerable[sys.Name]); len(qs) > 0 {
			slices.Sort(qs)
			qs = slices.Compact(qs)
			s.LeftOut = append(s.LeftOut, fmt.Sprintf("%s: %d unanswerable queries left out: no ranked-list metric applies; ragstat stages scores their abstention: %s",
				s.Name, len(qs), listIDs(qs)))
		}
		m := *p.Manifest
		m.Queries = manifest.Queries(s.Queries)
		s.Manifest = &m
		out = append(out, s)
	}
	return out
}

// configs records the traced sides' configurations in ref.
func configs(ref *manifest.Manifest, sides []*Side) {
	for _, s := range sides {
		if s.Config != nil {
			if ref.Configs == nil {
				ref.Configs = map[string]json.RawMessage{}
			}
			ref.Configs[s.Name] = s.Config
		}
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
