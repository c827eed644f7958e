package mergecmd

import (
	"fmt"
	"slices"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stages"
)

// MergeStages combines the partial results of `ragstat stages --shard I/N
// --format json`, named by names (file names, for messages), into exactly
// the result one run over every trace gives (stages.Merge). It refuses
// parts that are not one split's shards each once, whose manifests
// disagree (judgments, policy, metrics and cutoffs, tokenizer, inputs,
// ragstat version) or whose truncation and metadata policies differ, and
// parts that hold a query of another shard, naming them.
func MergeStages(names []string, parts []*report.SavedStages) (*report.Stages, error) {
	ms := make([]*eval.Manifest, len(parts))
	for i, p := range parts {
		ms[i] = p.Manifest
	}
	positions, err := checkParts(names, ms, parts, eval.KindStages, func(first, p *report.SavedStages) []string {
		d := disagree(first.Manifest, p.Manifest, first.Tool, p.Tool, first.Inputs, p.Inputs)
		if a, b := policies(first), policies(p); a != b && a != "" && b != "" {
			d = append(d, fmt.Sprintf("the truncation and metadata policies (%s vs %s)", a, b))
		}
		return d
	}, func(name string, p *report.SavedStages) []string {
		rs := report.StageResults(p.Result)
		return ownRecord(name, p.Manifest, eval.DigestResults(rs), rs)
	}, strayStages)
	if err != nil {
		return nil, err
	}
	results := make([]*stages.Result, len(parts))
	for i, p := range parts {
		results[i] = p.Result
	}
	res, err := stages.Merge(results, func(q string) (int, bool) { pos, ok := positions[q]; return pos, ok })
	if err != nil {
		return nil, err
	}
	first := parts[0].Stages
	return &report.Stages{Tool: first.Tool, Version: first.Version, Policy: first.Policy, Inputs: first.Inputs, Result: res}, nil
}

// policies names a part's truncation and metadata policies ("" when it
// has no system).
func policies(p *report.SavedStages) string {
	for _, sys := range p.Result.Systems {
		if sys.Partial != nil {
			return fmt.Sprintf("truncated %s, unknown metadata %s", sys.Partial.Truncated, sys.Partial.Metadata)
		}
	}
	return ""
}

// strayStages returns a query the part holds that belongs to another shard.
func strayStages(p *report.SavedStages, s settings.Shard) (string, bool) {
	for _, sys := range p.Result.Systems {
		var qs []string
		for _, st := range sys.Stages {
			for _, row := range st.Eval.Rows {
				qs = append(qs, row.Query)
			}
			qs = append(append(qs, st.Eval.Ignored...), st.Eval.Excluded...)
		}
		for _, f := range sys.Facts {
			qs = append(qs, f.Query)
		}
		for _, b := range sys.Context.Budgets {
			qs = append(qs, b.Query)
		}
		if sys.Partial != nil {
			qs = append(qs, sys.Partial.First.Query)
		}
		if i := slices.IndexFunc(qs, func(q string) bool { return !s.Has(q) }); i >= 0 {
			return qs[i], false
		}
	}
	return "", true
}
