package main

import (
	"encoding/json"
	"fmt"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/stages"
)

// traceSides evaluates every system of a trace file stage by stage: each
// becomes a side whose metrics are "stage/metric" (and "stage/facts", the
// required-fact coverage, where topics have facts).
func (c *compareCmd) traceSides(sc scorer, ref *manifest.Manifest, f *input.File, name string, scan stages.Traces) ([]*compare.Side, error) {
	in, opt, err := c.stagesInput(sc)
	if err != nil {
		return nil, err
	}
	res, err := stages.Evaluate(in, scan, opt)
	if err != nil {
		return nil, err
	}
	var out []*compare.Side
	for _, sys := range res.Systems {
		s := compare.FromStages(sys, name)
		file, err := record("trace", f)
		if err != nil {
			return nil, err
		}
		file.System = s.Name
		ref.Inputs = append(ref.Inputs, *file)
		if s.Config != nil {
			if ref.Configs == nil {
				ref.Configs = map[string]json.RawMessage{}
			}
			ref.Configs[s.Name] = s.Config
		}
		s.Manifest = &manifest.Manifest{Judgments: ref.Judgments, Policy: ref.Policy, Metrics: ref.Metrics, Queries: manifest.Queries(s.Queries)}
		out = append(out, s)
	}
	return out, nil
}

// stagesInput is what traces are evaluated against: the judgments, and
// the topics, corpus and tokenizer given.
func (c *compareCmd) stagesInput(sc scorer) (stages.Input, stages.Options, error) {
	g := sc.given
	opt := stages.Options{Policy: sc.ev.Policy(), Metrics: sc.ev.Metrics(), Cutoffs: c.K.ByStage,
		Truncated: stages.TruncatedError, Tokenizer: g.tokenizer}
	in := stages.Input{Judgments: sc.ev.Judgments(), Topics: g.topics, Corpus: g.corpus}
	if g.topics == nil {
		return in, opt, fmt.Errorf("comparing traces needs --topics: what each query requires")
	}
	return in, opt, nil
}
