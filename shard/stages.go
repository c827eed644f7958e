package shard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/manifest"
	"github.com/ragstat/ragstat/report"
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
	ms := make([]*manifest.Manifest, len(parts))
	for i, p := range parts {
		ms[i] = p.Manifest
	}
	specs, err := specsOf(names, ms, manifest.KindStages)
	if err != nil {
		return nil, err
	}
	var problems []string
	for i := 1; i < len(parts); i++ {
		d := disagree(parts[0].Manifest, parts[i].Manifest, parts[0].Tool, parts[i].Tool, parts[0].Inputs, parts[i].Inputs)
		if a, b := policies(parts[0]), policies(parts[i]); a != b && a != "" && b != "" {
			d = append(d, fmt.Sprintf("the truncation and metadata policies (%s vs %s)", a, b))
		}
		if len(d) > 0 {
			problems = append(problems, fmt.Sprintf("%s and %s disagree on %s", names[0], names[i], strings.Join(d, "; ")))
		}
	}
	positions, pp := positionsOf(names, ms)
	problems = append(problems, pp...)
	for i, p := range parts {
		if q, ok := strayStages(p, specs[i]); !ok {
			problems = append(problems, fmt.Sprintf("%s holds query %q, which belongs to shard %d/%d, not %s", names[i], q, Of(q, specs[i].Count), specs[i].Count, specs[i]))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("cannot merge:\n  %s", strings.Join(problems, "\n  "))
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
func strayStages(p *report.SavedStages, s Spec) (string, bool) {
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
