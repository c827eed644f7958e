package compare

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
)

// Config is how a comparison is made and gated.
type Config struct {
	Options
	// SliceBy lists the topic fields to slice by (tag, tag:PREFIX,
	// family, answerable); empty means tag when topics are given.
	SliceBy []string
	// AllowMismatch lists the frozen fields allowed to differ between
	// the inputs (eval.Frozen).
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
	// Price per million input and output tokens prices each traced
	// query (nil: not priced); the sides' costs carry the token counts.
	Price *analysis.Cost
	// Names writes an option's name in the notes, as the caller names it
	// (nil: the option's own name, "allow_mismatch").
	Names func(option string) string
	// PPI, under the label choice ppi, corrects every mean difference
	// with the human audit (PPIDiff), and Human holds the
	// systems' values under people's grades on the audited queries, by
	// system, metric and query; nil otherwise. Agreement is how the LLM
	// labels agree with people's grades (nil: no pair carries both).
	PPI       *eval.Correction
	Human     map[string]map[string]map[string]float64
	Agreement *eval.Agreement
	// Warnings go to the result's notes after the inputs' own.
	Warnings []string
}

// Run compares the sides, the first the base, recorded in ref (the
// comparison's manifest: the judgments, topics and corpus given, the
// policy, metrics and tokenizer; nil for sides built in memory): it refuses sides whose frozen fields
// differ from ref's unless cfg allows them, notes configuration
// differences, aligns the sides on their common metrics and queries,
// slices the queries by the topics set (nil: no slices), computes the
// statistics, the gate, its power and the frontier of traced sides. It
// returns the result and the reasons the gate failed, one a line (none:
// it passed).
func Run(ref *eval.Manifest, sides []*Side, set *topics.Set, cfg Config) (*Result, []string, error) {
	if ref == nil {
		ref = &eval.Manifest{}
	}
	for _, f := range cfg.AllowMismatch {
		if err := eval.CheckFrozen(f); err != nil {
			return nil, nil, err
		}
	}
	if set == nil && len(cfg.SliceBy) > 0 {
		return nil, nil, fmt.Errorf("slicing needs topics")
	}
	table, opt, notes, err := prepare(ref, sides, set, cfg)
	if err != nil {
		return nil, nil, err
	}
	res, err := Compare(table, opt)
	if err != nil {
		return nil, nil, err
	}
	res.Manifest, res.Notes = ref, slices.Concat(notes, cfg.Warnings, res.Notes)
	if cfg.PPI != nil {
		if res.PPI, err = ppiDiffs(table, cfg.Human, cfg.PPI, opt, stats.Correction(res.Settings.Correction)); err != nil {
			return nil, nil, err
		}
	}
	if cfg.Agreement != nil {
		a := *cfg.Agreement
		if cfg.PPI != nil {
			a.Rankings = rankAgreements(table, cfg.Human, cfg.PPI)
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
	if res.GatePower, err = res.power(cfg.FailOn); err != nil {
		return nil, nil, err
	}
	if res.Frontier, err = res.frontier(sides, cfg.Quality, cfg.Price, ref.Tokenizer); err != nil {
		return nil, nil, err
	}
	return res, reasons, nil
}

// prepare checks the sides' frozen fields against ref (the comparison's
// manifest, filled in), aligns them and slices the queries by topics (nil:
// no slices). It returns the table to compare, the options with the
// slices, and the notes.
func prepare(ref *eval.Manifest, sides []*Side, tps *topics.Set, cfg Config) (*Table, Options, []string, error) {
	opt := cfg.Options
	configs(ref, sides)
	notes, err := check(ref, sides, cfg.AllowMismatch, cfg.Names)
	if err != nil {
		return nil, opt, nil, err
	}
	if sides[0].Manifest != nil {
		ref.Policy = sides[0].Manifest.Policy
	}
	configs, err := configNotes(sides)
	if err != nil {
		return nil, opt, nil, err
	}
	notes = append(notes, configs...)
	table, dropped := align(sides)
	if tps != nil {
		by := cfg.SliceBy
		if len(by) == 0 {
			by = []string{"tag"}
		}
		if opt.Slices, err = tps.Slices(table.Queries, by); err != nil {
			return nil, opt, nil, err
		}
		for _, q := range table.Queries {
			table.Text = append(table.Text, tps.Get(q).Text)
		}
	}
	ref.Kind, ref.Metrics, ref.Queries = eval.KindCompare, table.Metrics, eval.DigestQueries(table.Queries)
	return table, opt, append(notes, dropped...), nil
}

// configs records the traced sides' configurations in ref.
func configs(ref *eval.Manifest, sides []*Side) {
	for _, s := range sides {
		if s.Config != nil {
			if ref.Configs == nil {
				ref.Configs = map[string]json.RawMessage{}
			}
			ref.Configs[s.Name] = s.Config
		}
	}
}
