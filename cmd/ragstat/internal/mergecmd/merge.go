package mergecmd

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/eval"
)

// Merged is the evaluation the partial results make together.
type Merged struct {
	*report.Eval
	// FoldedJudgments counts judgments folded into their document under
	// --unit doc, over every shard.
	FoldedJudgments int
}

// MergeEval combines the partial results of `ragstat eval --shard I/N
// --format json`, named by names (file names, for messages), into exactly
// the evaluation one run over every query gives, with its notes. It refuses parts that are
// not one split's shards each once (overlap, gap), whose manifests disagree
// (judgments, runs, policy, metrics, ragstat version) or that hold a query
// of another shard, naming them.
func MergeEval(names []string, parts []*report.Saved) (*Merged, error) {
	ms := make([]*eval.Manifest, len(parts))
	for i, p := range parts {
		ms[i] = p.Manifest
	}
	positions, err := checkParts(names, ms, parts, eval.KindEval, func(first, p *report.Saved) []string {
		d := disagree(first.Manifest, p.Manifest, first.Tool, p.Tool, first.Inputs, p.Inputs)
		if !slices.Equal(runNames(first.Eval), runNames(p.Eval)) {
			d = append(d, fmt.Sprintf("the runs (%s vs %s)", strings.Join(runNames(first.Eval), ", "), strings.Join(runNames(p.Eval), ", ")))
		}
		return d
	}, func(name string, p *report.Saved) []string {
		return ownRecord(name, p.Manifest, eval.DigestResults(p.Results), p.Results)
	}, stray)
	if err != nil {
		return nil, err
	}
	if err := contiguous(positions); err != nil {
		return nil, err
	}
	first := parts[0].Eval
	out := &Merged{Eval: &report.Eval{Tool: first.Tool, Version: first.Version, Policy: first.Policy, Inputs: first.Inputs}}
	position := func(q string) (int, bool) { pos, ok := positions[q]; return pos, ok }
	for r := range first.Results {
		runParts := make([]*eval.Result, len(parts))
		for i, p := range parts {
			runParts[i] = p.Results[r]
		}
		res, err := eval.Merge(runParts, position)
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, res)
	}
	for _, p := range parts {
		out.FoldedJudgments += p.Manifest.Shard.FoldedJudgments
	}
	out.Notes = report.Notes(out.FoldedJudgments, out.Policy, nil, out.Results)
	return out, nil
}

// contiguous checks that the judged positions of every part together are
// 0, 1, ... with none missing, as eval records them (its place among all
// judged queries): a position no part holds is a query removed from its
// part, its own record included.
func contiguous(positions map[string]int) error {
	held := make([]bool, len(positions))
	for _, pos := range positions {
		if pos < 0 || pos >= len(held) {
			return fmt.Errorf("cannot merge: judged position %d is past the %d judged queries the parts hold: a part lost a query (or the parts are not of one split)", pos, len(held))
		}
		held[pos] = true
	}
	if i := slices.Index(held, false); i >= 0 {
		return fmt.Errorf("cannot merge: no part holds judged position %d: a part lost a query", i)
	}
	return nil
}

// checkParts checks that parts, whose manifests are ms, can merge: that
// they are every shard of one split once (specsOf), that none disagrees
// with the first on what differ names, that no two claim one judged
// position, that each holds what its own manifest records (own) and that
// none holds a query of another shard (stray). It
// returns every query's judged position, or an error naming every problem.
func checkParts[P any](names []string, ms []*eval.Manifest, parts []P, kind string,
	differ func(first, p P) []string, own func(name string, p P) []string, stray func(P, settings.Shard) (string, bool)) (map[string]int, error) {
	specs, err := specsOf(names, ms, kind)
	if err != nil {
		return nil, err
	}
	var problems []string
	for i := 1; i < len(parts); i++ {
		if d := differ(parts[0], parts[i]); len(d) > 0 {
			problems = append(problems, fmt.Sprintf("%s and %s disagree on %s", names[0], names[i], strings.Join(d, "; ")))
		}
	}
	positions, pp := positionsOf(names, ms)
	problems = append(problems, pp...)
	for i, p := range parts {
		problems = append(problems, own(names[i], p)...)
	}
	for i, p := range parts {
		if q, ok := stray(p, specs[i]); !ok {
			problems = append(problems, fmt.Sprintf("%s holds query %q, which belongs to shard %d/%d, not %s", names[i], q, settings.ShardOf(q, specs[i].Count), specs[i].Count, specs[i]))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("cannot merge:\n  %s", strings.Join(problems, "\n  "))
	}
	return positions, nil
}

// specsOf reads each part's place in the split from its manifest, of
// kind, and checks that the parts are every shard of one split once.
func specsOf(names []string, ms []*eval.Manifest, kind string) ([]settings.Shard, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("no partial results to merge")
	}
	specs := make([]settings.Shard, len(ms))
	for i, m := range ms {
		s := m.Shard
		if s == nil {
			return nil, fmt.Errorf("%s is not a partial result (its manifest names no shard): write each part with ragstat %s --shard I/N --format json", names[i], kind)
		}
		if s.Hash != settings.ShardHash {
			return nil, fmt.Errorf("%s was split with hash %q; this ragstat splits with %q", names[i], s.Hash, settings.ShardHash)
		}
		specs[i] = settings.Shard{Index: s.Index, Count: s.Count}
		if err := specs[i].Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", names[i], err)
		}
	}
	return specs, Cover(names, specs)
}

// positionsOf gathers every part's judged positions, naming a position
// that two parts claim.
func positionsOf(names []string, ms []*eval.Manifest) (map[string]int, []string) {
	var problems []string
	positions := map[string]int{}
	taken := map[int]string{}
	for i, m := range ms {
		for _, q := range slices.Sorted(maps.Keys(m.Shard.Positions)) {
			pos := m.Shard.Positions[q]
			if other, dup := taken[pos]; dup {
				problems = append(problems, fmt.Sprintf("%s puts query %q at judged position %d, where another part has %q", names[i], q, pos, other))
			}
			taken[pos] = q
			positions[q] = pos
		}
	}
	return positions, problems
}

// disagree names what two parts of one split must share and do not.
func disagree(a, b *eval.Manifest, toolA, toolB string, inA, inB []report.Input) []string {
	var out []string
	for _, m := range eval.FrozenDiff(a, b) {
		if m.Field != "query_set" {
			out = append(out, fmt.Sprintf("%s (%s vs %s)", m.Field, m.Base, m.Cand))
		}
	}
	if a.Tokenizer != b.Tokenizer {
		out = append(out, fmt.Sprintf("the tokenizer (%q vs %q)", a.Tokenizer, b.Tokenizer))
	}
	if a.Version != b.Version || toolA != toolB {
		out = append(out, fmt.Sprintf("the ragstat version (%s vs %s)", a.Version, b.Version))
	}
	if !slices.Equal(inA, inB) {
		out = append(out, fmt.Sprintf("the inputs (%s vs %s)", inputs(inA), inputs(inB)))
	}
	return out
}

func inputs(in []report.Input) string {
	var s []string
	for _, f := range in {
		s = append(s, fmt.Sprintf("%s %s sha256 %.12s", f.Role, f.Path, f.SHA256))
	}
	return strings.Join(s, ", ")
}

func runNames(r *report.Eval) []string {
	var out []string
	for _, res := range r.Results {
		out = append(out, res.Name+"="+res.File)
	}
	return out
}

// stray returns a query the part holds that belongs to another shard.
func stray(p *report.Saved, s settings.Shard) (string, bool) {
	for _, q := range slices.Sorted(maps.Keys(p.Manifest.Shard.Positions)) {
		if !s.Has(q) {
			return q, false
		}
	}
	for _, res := range p.Results {
		for _, qs := range [][]string{res.Excluded, res.Ignored} {
			for _, q := range qs {
				if !s.Has(q) {
					return q, false
				}
			}
		}
		for _, row := range res.Rows {
			if !s.Has(row.Query) {
				return row.Query, false
			}
		}
	}
	return "", true
}

// ownRecord checks that a part holds what its own manifest records: its
// values' digest (values), and in each result every query once, the first
// result's queries being the manifest's query set.
func ownRecord(name string, m *eval.Manifest, values string, results []*eval.Result) []string {
	var problems []string
	switch m.Shard.Values {
	case "":
		problems = append(problems, fmt.Sprintf("%s records no digest of its values: write each part with this ragstat's --shard I/N --format json", name))
	case values:
	default:
		problems = append(problems, fmt.Sprintf("%s: its per-query values or queries do not match the digest its manifest records (values_sha256): the file was changed after it was written", name))
	}
	for i, res := range results {
		ids := make([]string, len(res.Rows))
		seen := make(map[string]bool, len(res.Rows))
		for j, row := range res.Rows {
			if seen[row.Query] {
				problems = append(problems, fmt.Sprintf("%s, run %q: query %q appears twice", name, res.Name, row.Query))
			}
			seen[row.Query] = true
			ids[j] = row.Query
		}
		if i > 0 || eval.DigestQueries(ids) == m.Queries {
			continue
		}
		off := slices.Concat(res.Excluded, res.Ignored, res.ScoredUnanswerable)
		missing := ""
		for _, q := range slices.Sorted(maps.Keys(m.Shard.Positions)) {
			if !seen[q] && !slices.Contains(off, q) {
				missing = q
				break
			}
		}
		what := fmt.Sprintf("holds %d queries where its manifest's query set has %d", len(ids), m.Queries.N)
		if missing != "" {
			what = fmt.Sprintf("has no row for query %q, which its manifest lists", missing)
		}
		problems = append(problems, fmt.Sprintf("%s, run %q: %s", name, res.Name, what))
	}
	return problems
}
