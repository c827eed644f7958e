package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// isTrace reports whether f holds traces: JSON lines with "stages".
func isTrace(f *input.File) (bool, error) {
	head, err := f.Head(64 << 10)
	if err != nil {
		return false, err
	}
	var probe map[string]json.RawMessage
	if json.NewDecoder(bytes.NewReader(input.FirstLine(head))).Decode(&probe) != nil {
		return false, nil
	}
	_, ok := probe["stages"]
	return ok, nil
}

// traceSides evaluates every system of a trace file stage by stage: each
// becomes a side whose metrics are "stage/metric" (and "stage/facts", the
// required-fact coverage, where topics have facts).
func (c *compareCmd) traceSides(sc scorer, ref *manifest.Manifest, f *input.File, name string) ([]*side, error) {
	in, opt, err := c.stagesInput(sc)
	if err != nil {
		return nil, err
	}
	res, err := stages.Evaluate(in, func(fn func(*trace.Trace) error) error { return trace.Scan(f, 0, fn) }, opt)
	if err != nil {
		return nil, err
	}
	var out []*side
	for _, sys := range res.Systems {
		s := stageSide(sys, name)
		s.loss = &compare.Loss{System: s.name, Evidence: sys.Loss.Steps, Facts: sys.FactLoss.Steps}
		file, err := record("trace", f)
		if err != nil {
			return nil, err
		}
		file.System = s.name
		ref.Inputs = append(ref.Inputs, *file)
		if len(sys.Configs) > 0 {
			s.config = json.RawMessage(sys.Configs[0])
			if ref.Configs == nil {
				ref.Configs = map[string]json.RawMessage{}
			}
			ref.Configs[s.name] = s.config
		}
		s.man = &manifest.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics, Queries: manifest.Queries(s.queries)}
		out = append(out, s)
	}
	return out, nil
}

// stagesInput reads the topics and corpus traces need, once.
func (c *compareCmd) stagesInput(sc scorer) (stages.Input, stages.Options, error) {
	opt := stages.Options{Policy: sc.ev.Policy(), Metrics: sc.ev.Metrics(), Cutoffs: c.K.ByStage, Truncated: stages.TruncatedError}
	in := stages.Input{Judgments: sc.ev.Judgments()}
	if c.Topics == "" {
		return in, opt, fmt.Errorf("comparing traces needs --topics: what each query requires")
	}
	tf, err := input.Open(c.Topics, nil)
	if err != nil {
		return in, opt, err
	}
	if in.Topics, err = topics.Read(tf); err != nil {
		return in, opt, err
	}
	if c.Corpus != "" {
		cf, err := input.Open(c.Corpus, nil)
		if err != nil {
			return in, opt, err
		}
		if in.Corpus, err = corpus.Read(cf); err != nil {
			return in, opt, err
		}
	}
	if c.Tokenizer != "" {
		if opt.Tokenizer, err = tokenize.New(c.Tokenizer); err != nil {
			return in, opt, err
		}
	}
	return in, opt, nil
}

// stageSide lays a system's per-stage rows out as compare reads them.
func stageSide(sys *stages.System, name string) *side {
	s := &side{name: sys.Name}
	if name != "" {
		s.name = name
	}
	base := sys.Stages[0].Eval
	for _, row := range base.Rows {
		s.queries = append(s.queries, row.Query)
	}
	for _, st := range sys.Stages {
		values := map[string][]float64{}
		for _, row := range st.Eval.Rows {
			for i, m := range st.Eval.Metrics {
				values[m.Name()] = append(values[m.Name()], row.Values[i])
			}
		}
		for _, m := range st.Eval.Metrics {
			s.metrics = append(s.metrics, st.Name+"/"+m.Name())
			s.values = append(s.values, values[m.Name()])
		}
	}
	return withFacts(s, sys)
}

// withFacts adds each stage's per-query required-fact coverage.
func withFacts(s *side, sys *stages.System) *side {
	byQuery := map[string]stages.QueryFacts{}
	for _, qf := range sys.Facts {
		byQuery[qf.Query] = qf
	}
	for _, q := range s.queries {
		if _, ok := byQuery[q]; !ok {
			return s // facts apply to some queries only: not a per-query table
		}
	}
	for i, st := range sys.Stages {
		col := make([]float64, len(s.queries))
		for k, q := range s.queries {
			qf := byQuery[q]
			col[k] = float64(qf.Supported[i]) / float64(qf.Facts)
		}
		s.metrics = append(s.metrics, st.Name+"/facts")
		s.values = append(s.values, col)
	}
	return s
}

// configNotes says which configuration fields differ between the base and
// each candidate, and flags a comparison that changes more than one
// component at once.
func configNotes(sides []*side) ([]string, error) {
	base := sides[0]
	var notes []string
	for _, s := range sides[1:] {
		if base.config == nil && s.config == nil {
			continue
		}
		paths, components, err := manifest.ConfigDiff(base.config, s.config)
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			notes = append(notes, fmt.Sprintf("config: %s and %s record the same configuration", base.name, s.name))
			continue
		}
		notes = append(notes, fmt.Sprintf("config: %s differs from %s in %s", s.name, base.name, strings.Join(paths, ", ")))
		if len(components) > 1 {
			notes = append(notes, fmt.Sprintf("WARNING: %s changes %d components at once (%s): a difference cannot be attributed to one; change one component at a time when diagnosing causes",
				s.name, len(components), strings.Join(components, ", ")))
		}
	}
	return notes, nil
}
