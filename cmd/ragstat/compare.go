package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/htmlreport"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// compareCommands are the compare and report commands, embedded in the command line.
type compareCommands struct {
	Compare compareCmd `cmd:"" help:"Compare candidates with a base on the same queries: paired differences, intervals, tests, slices, a release gate."`
	Report  reportCmd  `cmd:"" help:"Render a saved eval, stages or compare JSON result as one self-contained HTML file."`
}

type compareCmd struct {
	policyFlags                 `set:"cutoff_help=Cutoff of the default metrics R@K RR@K nDCG@K (default 10); over traces also NAME=K, one stage's cutoff (repeatable)."`
	Topics                      string   `placeholder:"FILE" help:"Topics (JSONL): query text for the regressions, tags and fields for slices."`
	Corpus                      string   `placeholder:"FILE" help:"The corpus snapshot, recorded by digest in the manifest."`
	Tokenizer                   string   `placeholder:"NAME" help:"The generator's tokenizer, recorded in the manifest."`
	SliceBy                     []string `placeholder:"FIELD" help:"Slice queries by a topic field (repeatable): tag, tag:PREFIX, family, answerable. Default with --topics: tag."`
	MinSlice                    int      `default:"10" help:"A slice with fewer queries is marked too small and not tested."`
	Top                         int      `default:"10" help:"How many largest regressions and improvements to list per metric."`
	Seed                        uint64   `default:"1" help:"Seed of the bootstrap and randomization draws (printed)."`
	Resamples                   int      `default:"10000" help:"Bootstrap resamples of whole queries."`
	Randomizations              int      `default:"10000" help:"Random sign vectors of the randomization test (exact enumeration up to 20 queries)."`
	Level                       float64  `default:"0.95" help:"Confidence level of the intervals; significance is adjusted p < 1 - level."`
	Interval                    string   `default:"percentile" enum:"percentile,bca" help:"Bootstrap interval: ${enum}."`
	Correction                  string   `default:"holm" enum:"holm,bonferroni,bh,none" help:"Multiple-comparison correction: ${enum}."`
	AllowMismatch               []string `placeholder:"FIELD" help:"Compare although FIELD differs between inputs (repeatable, one field each): judgments, policy.*, metrics, query_set."`
	FailOn                      []string `placeholder:"RULE" help:"Gate: exit 3 when a mean difference meets RULE, e.g. 'nDCG@10 < -0.01' or 'R@100[tag:legal] < 0' (repeatable)."`
	FailOnSignificantRegression bool     `help:"Gate: exit 3 when any metric is significantly worse after correction on the whole set (or a --gate-slice)."`
	GateSlice                   []string `placeholder:"SLICE" help:"A slice also checked by --fail-on-significant-regression (repeatable), e.g. tag:legal."`
	Format                      string   `short:"f" default:"table" enum:"table,json,csv,markdown,html" help:"Output format (${enum})."`
	Systems                     []string `arg:"" placeholder:"BASE CAND" help:"Base then candidates: runs (PATH or NAME=PATH) or saved ragstat eval --format json results (all their runs)."`
}

// scorer evaluates runs now: the evaluator and the item-to-document map
// its policy needs.
type scorer struct {
	ev    *eval.Evaluator
	docOf func(string) string
	given *givens
}

func (c *compareCmd) Run(e *env) error {
	rules, err := c.rules()
	if err != nil {
		return err
	}
	ev, jf, err := c.evaluator(e)
	if err != nil {
		return err
	}
	defer jf.Close()
	g, err := c.readGivens(e)
	defer g.close()
	if err != nil {
		return err
	}
	ref, err := c.reference(ev, jf, g)
	if err != nil {
		return err
	}
	docOf, err := c.docOf(ev.Policy(), e)
	if err != nil {
		return err
	}
	sides, err := c.sides(scorer{ev, docOf, g}, ref, e)
	if err != nil {
		return err
	}
	notes, err := compare.Check(ref, sides, c.AllowMismatch)
	if err != nil {
		return err
	}
	ref.Policy = sides[0].Manifest.Policy
	configs, err := compare.ConfigNotes(sides)
	if err != nil {
		return err
	}
	notes = append(notes, configs...)
	table, dropped := compare.Align(sides)
	opt, err := c.options(table, g)
	if err != nil {
		return err
	}
	res, err := compare.Compare(table, opt)
	if err != nil {
		return err
	}
	res.Manifest, res.Notes = ref, append(notes, dropped...)
	for _, s := range sides {
		if s.Loss != nil {
			res.Losses = append(res.Losses, *s.Loss)
		}
	}
	ref.Kind, ref.Metrics, ref.Queries = manifest.KindCompare, table.Metrics, manifest.Queries(table.Queries)
	reasons, err := res.Gate(rules, c.FailOnSignificantRegression, c.GateSlice)
	if err != nil {
		return err
	}
	if err := render(e.stdout, c.Format, res); err != nil {
		return internal(err)
	}
	return gate(e, reasons)
}

func (c *compareCmd) rules() ([]compare.Rule, error) {
	for _, f := range c.AllowMismatch {
		if err := manifest.CheckField(f); err != nil {
			return nil, fmt.Errorf("--allow-mismatch: %w", err)
		}
	}
	var rules []compare.Rule
	for _, s := range c.FailOn {
		r, err := compare.ParseRule(s)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// reference is the manifest of the comparison: the judgments, topics and
// corpus given, the policy and metrics of the flags.
func (c *compareCmd) reference(ev *eval.Evaluator, jf *input.File, g *givens) (*manifest.Manifest, error) {
	m := &manifest.Manifest{Kind: manifest.KindCompare, Version: Version, Policy: manifest.FromEval(ev.Policy()),
		Tokenizer: c.Tokenizer, Allowed: c.AllowMismatch}
	for _, mt := range ev.Metrics() {
		m.Metrics = append(m.Metrics, mt.Name())
	}
	var err error
	if m.Judgments, err = record("judgments", jf); err != nil {
		return nil, err
	}
	if g.topicsFile != nil {
		if m.Topics, err = record("topics", g.topicsFile); err != nil {
			return nil, err
		}
	}
	if g.corpusFile != nil {
		if m.Corpus, err = record("corpus", g.corpusFile); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// givens are the topics, corpus and tokenizer a comparison was given, each
// read once.
type givens struct {
	topicsFile, corpusFile *input.File
	topics                 *topics.Set
	corpus                 *corpus.Corpus
	tokenizer              stages.Tokenizer
}

func (c *compareCmd) readGivens(e *env) (*givens, error) {
	g := &givens{}
	var err error
	if c.Topics != "" {
		if g.topicsFile, err = input.Open(c.Topics, e.stdin); err != nil {
			return g, err
		}
		if g.topics, err = topics.Read(g.topicsFile); err != nil {
			return g, err
		}
	}
	if c.Corpus != "" {
		if g.corpusFile, err = input.Open(c.Corpus, e.stdin); err != nil {
			return g, err
		}
		if g.corpus, err = corpus.Read(g.corpusFile); err != nil {
			return g, err
		}
	}
	if c.Tokenizer != "" {
		if g.tokenizer, err = tokenize.New(c.Tokenizer); err != nil {
			return g, err
		}
	}
	return g, nil
}

// close removes the copies of standard input.
func (g *givens) close() {
	for _, f := range []*input.File{g.topicsFile, g.corpusFile} {
		if f != nil {
			f.Close()
		}
	}
}

func record(role string, f *input.File) (*manifest.File, error) {
	sum, err := f.SHA256()
	return &manifest.File{Role: role, Path: f.Name, SHA256: sum}, err
}

// sides reads every input: a saved result gives all its runs, a run is
// evaluated now.
func (c *compareCmd) sides(sc scorer, ref *manifest.Manifest, e *env) ([]*compare.Side, error) {
	var out []*compare.Side
	seen := map[string]bool{}
	for _, arg := range c.Systems {
		name, path := namedRun(arg)
		f, err := input.Open(path, e.stdin)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		got, err := c.read(sc, ref, f, name)
		if err != nil {
			return nil, err
		}
		for _, s := range got {
			if seen[s.Name] {
				return nil, fmt.Errorf("two systems are named %q: name them with NAME=PATH", s.Name)
			}
			seen[s.Name] = true
		}
		out = append(out, got...)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("compare needs a base and at least one candidate; got %d system", len(out))
	}
	return out, nil
}

func (c *compareCmd) read(sc scorer, ref *manifest.Manifest, f *input.File, name string) ([]*compare.Side, error) {
	if traces, err := trace.Is(f); err != nil || traces {
		if err != nil {
			return nil, err
		}
		return c.traceSides(sc, ref, f, name)
	}
	file, err := record("run", f)
	if err != nil {
		return nil, err
	}
	if saved, err := isSaved(f); err != nil || saved {
		if err != nil {
			return nil, err
		}
		file.Role = "result"
		ref.Inputs = append(ref.Inputs, *file)
		return savedSides(f, name)
	}
	if name == "" {
		name = f.Base()
	}
	file.System = name
	ref.Inputs = append(ref.Inputs, *file)
	s, err := c.evaluate(sc, f, name)
	if err != nil {
		return nil, err
	}
	s.Manifest = &manifest.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics,
		Queries: manifest.Queries(s.Queries)}
	return []*compare.Side{s}, nil
}

// isSaved reports whether f is a ragstat JSON result: an object whose
// first field is "tool": "ragstat".
func isSaved(f *input.File) (bool, error) {
	head, err := f.Head(256)
	if err != nil {
		return false, err
	}
	d := json.NewDecoder(bytes.NewReader(head))
	var toks []any
	for range 3 {
		t, err := d.Token()
		if err != nil {
			return false, nil
		}
		toks = append(toks, t)
	}
	return toks[0] == json.Delim('{') && toks[1] == "tool" && toks[2] == "ragstat", nil
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
		m.Queries = manifest.Queries(s.Queries)
		s.Manifest = &m
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no run named %q in this result", f.Name, name)
	}
	return out, nil
}

// evaluate scores a run now, noting where its relevant items sit in the
// same pass.
func (c *compareCmd) evaluate(sc scorer, f *input.File, name string) (*compare.Side, error) {
	if sc.ev.Policy().Unjudged == eval.UnjudgedBounds {
		return nil, fmt.Errorf("--unjudged bounds gives [low, high] per query; compare needs one value: use nonrelevant or skip")
	}
	format, _ := input.ParseFormat(c.RunFormat)
	order, _ := runs.ParseOrder(c.Order)
	opt := runs.Options{Format: format, Order: order}
	var mu sync.Mutex
	rankings := map[string]compare.Ranking{}
	res, err := sc.ev.RunVisit(name, f, opt, func(r *runs.Ranking) {
		if rk, ok := sc.ranking(r); ok {
			mu.Lock()
			defer mu.Unlock()
			rankings[strings.Clone(r.Query)] = rk
		}
	})
	if err != nil {
		return nil, err
	}
	s, err := compare.FromResult(res, f.Name)
	if err != nil {
		return nil, err
	}
	s.Rankings = rankings
	return s, nil
}

// rankingDepth is how much of each list the regressions view shows.
const rankingDepth = 10

// ranking says where a query's judged items sit, in the list as evaluated
// (documents under --unit doc, unjudged items removed under --unjudged
// skip); false for a query without judgments.
func (sc scorer) ranking(r *runs.Ranking) (compare.Ranking, bool) {
	q := sc.ev.Judgments().Query(r.Query)
	if q == nil {
		return compare.Ranking{}, false
	}
	return compare.RankingAsEvaluated(r.Items, q, sc.ev.Policy(), sc.docOf, rankingDepth), true
}

// options are the statistics, slices and query texts the flags ask for.
func (c *compareCmd) options(t *compare.Table, g *givens) (compare.Options, error) {
	corr, _ := stats.ParseCorrection(c.Correction)
	opt := compare.Options{Correction: corr, Top: c.Top, MinSlice: c.MinSlice,
		Stats: stats.Options{Level: c.Level, Resamples: c.Resamples, Randomizations: c.Randomizations,
			Interval: stats.IntervalMethod(c.Interval), Seed: c.Seed}}
	switch {
	case c.Top < 1 || c.MinSlice < 1 || c.Resamples < 1 || c.Randomizations < 1:
		return opt, fmt.Errorf("--top, --min-slice, --resamples and --randomizations must be positive")
	case !(c.Level > 0 && c.Level < 1):
		return opt, fmt.Errorf("--level %g must lie strictly between 0 and 1", c.Level)
	case g.topics == nil:
		if len(c.SliceBy) > 0 {
			return opt, fmt.Errorf("--slice-by needs --topics")
		}
		return opt, nil
	}
	set := g.topics
	var err error
	by := c.SliceBy
	if len(by) == 0 {
		by = []string{"tag"}
	}
	if opt.Slices, err = compare.SlicesFrom(t.Queries, set, by); err != nil {
		return opt, err
	}
	for _, q := range t.Queries {
		t.Text = append(t.Text, set.Get(q).Text)
	}
	return opt, nil
}

// render writes a comparison in format: html, or a text format.
func render(w io.Writer, format string, r *compare.Result) error {
	if format == "html" {
		return htmlreport.Compare(w, r)
	}
	return compare.Render(w, format, r)
}

// gate prints one line per reason and exits 3 when there is any.
func gate(e *env, reasons []string) error {
	if len(reasons) == 0 {
		return nil
	}
	for _, r := range reasons {
		fmt.Fprintln(e.stderr, "gate:", r)
	}
	return &exitError{code: exitGate, err: fmt.Errorf("the gate failed: %d reason(s)", len(reasons))}
}

type reportCmd struct {
	Result string `arg:"" placeholder:"RESULT.json" help:"A result saved with --format json by ragstat eval, stages or compare; - for stdin."`
}

func (c *reportCmd) Run(e *env) error {
	f, err := input.Open(c.Result, e.stdin)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := f.ReadAll()
	if err != nil {
		return err
	}
	kind, err := manifest.KindOf(data)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	switch kind {
	case manifest.KindEval:
		saved, err := report.Read(f)
		if err != nil {
			return err
		}
		return htmlreport.Eval(e.stdout, saved)
	case manifest.KindCompare:
		r, err := compare.Read(data)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		return htmlreport.Compare(e.stdout, r)
	case manifest.KindStages:
		saved, err := report.ReadStages(f)
		if err != nil {
			return err
		}
		return htmlreport.Stages(e.stdout, saved)
	}
	return fmt.Errorf("%s: cannot render a %q result", f.Name, kind)
}
