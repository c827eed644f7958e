package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/digest"
	"github.com/ragstat/ragstat/topics"
)

// partial is what the comparison of one shard of a split by query
// (Part), which computes no statistics, carries so that Merge makes
// the comparison of every query: each side as read, with its queries'
// places in the order one run reads them, the topics of the compared
// queries and the settings the statistics and the gate need. Statistics
// over queries are never combined from shards: Merge computes them anew.
type partial struct {
	// Inputs says of each input compared whether it is a trace file (one
	// side per system it holds in the shard) or not (one side).
	Inputs []bool        `json:"traced_inputs"`
	Sides  []partialSide `json:"sides"`
	// Topics are the compared queries' topics (text, tags, family,
	// answerable); nil when no topics were given.
	Topics *partialTopics `json:"topics"`
	// Options are the statistics' options (without slices), SliceBy the
	// topic fields to slice by; FailOn, FailOnSignificant, GateSlices
	// and Quality are the gate's and frontier's settings.
	Options           Options  `json:"options"`
	SliceBy           []string `json:"slice_by"`
	FailOn            []string `json:"fail_on"`
	FailOnSignificant bool     `json:"fail_on_significant"`
	GateSlices        []string `json:"gate_slices"`
	Quality           string   `json:"quality"`
}

// partialSide is one side of a shard's comparison as read, before
// alignment.
type partialSide struct {
	Input    int            `json:"input"` // the input it comes from, counting from 0
	Name     string         `json:"name"`
	Manifest *eval.Manifest `json:"manifest"`
	Metrics  []string       `json:"metrics"`
	Queries  []string       `json:"queries"`
	// Positions gives each query's place in the order one run reads them.
	Positions []int       `json:"positions"`
	Values    [][]float64 `json:"values"` // by metric, then query
	// Rankings is null when unknown (a saved result).
	Rankings map[string]Ranking `json:"rankings"`
	// Traced holds what a traced system adds, summed over shards; nil for
	// a run or a saved result.
	Traced *tracedSide `json:"traced,omitempty"`
}

// tracedSide is what a traced system's side carries beside its per-query
// values (Side's fields of the same names): Facts names the columns of
// FactValues, each stage's required-fact coverage (none when a query of
// the shard has no facts).
type tracedSide struct {
	First        Place           `json:"first"` // the system's first trace
	Stages       []string        `json:"stages"`
	Order        []string        `json:"order"` // the losses' statuses in pipeline order (stages.Statuses)
	Facts        []string        `json:"facts"`
	FactValues   [][]float64     `json:"fact_values"`
	Loss         Loss            `json:"loss"`
	Config       json.RawMessage `json:"config,omitempty"`
	ConfigAt     Place           `json:"config_at"`
	Latencies    []float64       `json:"latencies"`
	Unanswerable []string        `json:"unanswerable"`
}

// partialTopics are the topics a shard's comparison read, those of its
// compared queries.
type partialTopics struct {
	File   string          `json:"file"`
	Topics []*topics.Topic `json:"topics"`
}

// Keep leaves the side with the queries keep accepts, each with its place
// among the side's queries as read (a shard's part of a saved result).
func (s *Side) Keep(keep func(string) bool) {
	var qs []string
	var pos []int
	values := make([][]float64, len(s.Values))
	for i, q := range s.Queries {
		if !keep(q) {
			continue
		}
		qs, pos = append(qs, q), append(pos, i)
		for m := range s.Values {
			values[m] = append(values[m], s.Values[m][i])
		}
	}
	s.Queries, s.Positions, s.Values = qs, pos, values
	if s.Manifest != nil {
		m := *s.Manifest
		m.Queries = eval.DigestQueries(qs)
		s.Manifest = &m
	}
}

// Part lays one shard's sides out as a comparison of its own queries
// without statistics (no comparisons, slices, moves nor gate: those need
// every query), and records what Merge needs: which inputs are trace files
// (traced, by Side.Input), the topics set's compared queries (nil: none),
// and in ref the shard's record (shard, its judged positions filled in;
// nil: none) with the digest of the sides.
func Part(ref *eval.Manifest, sides []*Side, traced []bool, set *topics.Set, cfg Config, shard *eval.Shard) (*Result, error) {
	p := &partial{Inputs: traced, Options: cfg.Options, SliceBy: cfg.SliceBy, FailOnSignificant: cfg.FailOnSignificant,
		GateSlices: cfg.GateSlices, Quality: cfg.Quality}
	for _, r := range cfg.FailOn {
		p.FailOn = append(p.FailOn, r.text)
	}
	for _, s := range sides {
		ps := partialSide{Input: s.Input, Name: s.Name, Manifest: s.Manifest, Metrics: s.Metrics, Queries: s.Queries,
			Positions: s.Positions, Values: s.Values, Rankings: s.Rankings}
		if s.Loss != nil {
			n := len(s.Metrics) - s.Facts
			ps.Metrics, ps.Values = s.Metrics[:n], s.Values[:n]
			ps.Traced = &tracedSide{First: s.First, Stages: s.Stages, Order: s.Order, Facts: s.Metrics[n:], FactValues: s.Values[n:], Loss: *s.Loss,
				Config: s.Config, ConfigAt: s.ConfigAt, Latencies: s.Latencies, Unanswerable: s.Unanswerable}
		}
		p.Sides = append(p.Sides, ps)
	}
	table, opt, notes, err := prepare(ref, sides, set, cfg)
	if err != nil {
		return nil, err
	}
	if err := table.check(); err != nil {
		return nil, err
	}
	res := newResult(table, opt.withDefaults())
	res.Manifest, res.Notes, res.Comparisons, res.Extremes, res.Partial = ref, notes, []Comparison{}, []Extremes{}, p
	if set != nil {
		p.Topics = &partialTopics{File: set.File}
		for _, q := range res.Queries {
			t := set.Get(q)
			p.Topics.Topics = append(p.Topics.Topics, &topics.Topic{ID: t.ID, Text: t.Text, Tags: t.Tags, Answerable: t.Answerable, Family: t.Family})
		}
	}
	if shard != nil {
		sh := *shard
		sh.Values = p.Digest()
		ref.Shard = &sh
	}
	return res, nil
}

// Digest is the sha256 of the sides' queries, places and values (see
// eval.DigestResults), which a partial comparison records in its
// manifest for the merge to check.
func (p *partial) Digest() string {
	d := digest.New()
	d.Int(len(p.Sides))
	for _, s := range p.Sides {
		d.Str(s.Name)
		d.Strs(s.Queries)
		d.Int(len(s.Positions))
		for _, pos := range s.Positions {
			d.Int(pos)
		}
		d.Int(len(s.Values))
		for _, vs := range s.Values {
			d.Floats(vs)
		}
		if t := s.Traced; t != nil {
			d.Strs(t.Facts)
			for _, vs := range t.FactValues {
				d.Floats(vs)
			}
		}
	}
	return d.Sum()
}

// Merge makes, from the partial comparisons of every shard of one split
// (each once, their manifests and settings alike: package mergecmd checks
// that), the comparison one run over every query makes, bit for bit: each
// side's rows merged in the order one run reads them (eval.MergeRows, as
// eval and stages merge theirs), a traced side's losses, latencies and
// unanswerable queries summed, then alignment, slices, statistics (with
// the recorded seed), gate and gate power computed on the merged values
// exactly as Run computes them, its notes naming options by names (nil:
// their own names). It returns the result and the reasons the gate
// failed, as Run does.
func Merge(parts []*Result, names func(option string) string) (*Result, []string, error) {
	first := parts[0].Partial
	type key struct {
		input int
		name  string
	}
	at := map[key]*Side{}
	seen := map[*Side]int{}
	var tps []*topics.Topic
	for _, part := range parts {
		p := part.Partial
		if len(p.Inputs) != len(first.Inputs) {
			return nil, nil, fmt.Errorf("the parts compare %d and %d inputs", len(first.Inputs), len(p.Inputs))
		}
		for i, traced := range p.Inputs {
			if traced != first.Inputs[i] {
				return nil, nil, fmt.Errorf("input %d of the parts is traces in one and not in another", i+1)
			}
		}
		for i, ps := range p.Sides {
			if ps.Manifest == nil {
				return nil, nil, &diag.OptionError{Msg: fmt.Sprintf("input %d of a part has no manifest: %s", i+1, partsHint)}
			}
			if ps.Input < 0 || ps.Input >= len(p.Inputs) || (ps.Traced != nil) != p.Inputs[ps.Input] {
				return nil, nil, fmt.Errorf("input %d of the parts is traces in one and not in another", ps.Input+1)
			}
			k := key{ps.Input, ps.Name}
			s := at[k]
			if s == nil {
				s = &Side{Input: ps.Input, Name: ps.Name, Metrics: ps.Metrics}
				if ps.Rankings != nil {
					s.Rankings = map[string]Ranking{}
				}
				if ps.Traced != nil {
					s.First, s.Stages = ps.Traced.First, ps.Traced.Stages
				}
				at[k], seen[s] = s, len(seen)
			}
			if err := s.add(i, ps); err != nil {
				return nil, nil, err
			}
		}
		if p.Topics != nil {
			for _, t := range p.Topics.Topics {
				if t == nil {
					return nil, nil, &diag.OptionError{Msg: "a part lists a null topic: " + partsHint}
				}
				tps = append(tps, t)
			}
		}
	}
	sides := slices.SortedFunc(maps.Values(at), func(a, b *Side) int {
		switch {
		case a.Input != b.Input:
			return cmp.Compare(a.Input, b.Input)
		case a.First.before(b.First):
			return -1
		case b.First.before(a.First):
			return 1
		}
		return cmp.Compare(seen[a], seen[b])
	})
	for _, s := range sides {
		if err := s.merged(parts); err != nil {
			return nil, nil, err
		}
	}
	ref := *parts[0].Manifest
	ref.Shard, ref.Configs = nil, nil
	if len(sides) < 2 {
		return nil, nil, fmt.Errorf("compare needs a base and at least one candidate; the parts hold %d system", len(sides))
	}
	cfg := Config{Options: first.Options, SliceBy: first.SliceBy, AllowMismatch: parts[0].Manifest.Allowed,
		FailOnSignificant: first.FailOnSignificant, GateSlices: first.GateSlices, Quality: first.Quality, Names: names}
	for _, text := range first.FailOn {
		rule, err := ParseRule(text)
		if err != nil {
			return nil, nil, err
		}
		cfg.FailOn = append(cfg.FailOn, rule)
	}
	var set *topics.Set
	if first.Topics != nil {
		set = topics.NewSet(first.Topics.File, tps)
	}
	return Run(&ref, sides, set, cfg)
}

// partsHint says what parts a merge takes.
const partsHint = "give partial results written by ragstat compare {shard} I/N {format} json"

// add checks that ps, side i of a part, is one more shard's part of s,
// and gathers what its traced system adds: its losses summed, its
// latencies and unanswerable queries, its configuration first seen.
func (s *Side) add(i int, ps partialSide) error {
	if ps.Name != s.Name || !slices.Equal(ps.Metrics, s.Metrics) || len(ps.Values) != len(s.Metrics) || len(ps.Positions) != len(ps.Queries) {
		return fmt.Errorf("system %d of the parts is not one system: %s (%v) vs %s (%v)", i+1, s.Name, s.Metrics, ps.Name, ps.Metrics)
	}
	for m, vs := range ps.Values {
		if len(vs) != len(ps.Queries) {
			return fmt.Errorf("system %s, %s: %d values for %d queries", s.Name, s.Metrics[m], len(vs), len(ps.Queries))
		}
	}
	s.Manifest = ps.Manifest
	maps.Copy(s.Rankings, ps.Rankings)
	t := ps.Traced
	if t == nil {
		return nil
	}
	if !slices.Equal(t.Stages, s.Stages) {
		a, b := s.First, t.First
		return fmt.Errorf("system %q: stages [%s] at %s:%d differ from [%s] at %s:%d",
			s.Name, strings.Join(t.Stages, ", "), b.File, b.Line, strings.Join(s.Stages, ", "), a.File, a.Line)
	}
	if t.First.before(s.First) {
		s.First = t.First
	}
	for m, vs := range t.FactValues {
		if m >= len(t.Facts) || len(vs) != len(ps.Queries) {
			return fmt.Errorf("system %s: %d fact values for %d queries", s.Name, len(vs), len(ps.Queries))
		}
	}
	if s.Loss == nil {
		s.Loss = &Loss{System: t.Loss.System}
	}
	s.Loss.Evidence, s.Loss.Facts = addSteps(s.Loss.Evidence, t.Loss.Evidence, t.Order), addSteps(s.Loss.Facts, t.Loss.Facts, t.Order)
	if t.Config != nil && (s.Config == nil || t.ConfigAt.before(s.ConfigAt)) {
		s.Config, s.ConfigAt = t.Config, t.ConfigAt
	}
	s.Latencies = append(s.Latencies, t.Latencies...)
	s.Unanswerable = append(s.Unanswerable, t.Unanswerable...)
	return nil
}

// addSteps adds the counts of steps to those of sum, in the order of the
// statuses listed in order.
func addSteps(sum, steps []Step, order []string) []Step {
	for _, st := range steps {
		if i := slices.IndexFunc(sum, func(x Step) bool { return x.Status == st.Status }); i >= 0 {
			sum[i].Count += st.Count
		} else {
			sum = append(sum, st)
		}
	}
	rank := func(st Step) int {
		if i := slices.Index(order, st.Status); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(sum, func(a, b Step) int { return cmp.Compare(rank(a), rank(b)) })
	return sum
}

// merged makes s's sides of every part one side: its rows merged in the
// order one run reads them (eval.MergeRows), a traced side's fact columns
// kept only when every shard has them, its unanswerable queries sorted
// once, its query set recorded.
func (s *Side) merged(parts []*Result) error {
	var mine []partialSide
	for _, part := range parts {
		for _, ps := range part.Partial.Sides {
			if ps.Input == s.Input && ps.Name == s.Name {
				mine = append(mine, ps)
			}
		}
	}
	var facts []string
	if s.Loss != nil {
		facts = mine[0].Traced.Facts
		for _, ps := range mine {
			if !slices.Equal(ps.Traced.Facts, facts) {
				facts = nil // a shard has a query without facts: no per-query fact table
			}
		}
	}
	position := map[string]int{}
	rows := make([][]eval.Row, len(mine))
	for k, ps := range mine {
		for j, q := range ps.Queries {
			row := eval.Row{Query: q}
			for _, vs := range ps.Values {
				row.Values = append(row.Values, vs[j])
			}
			if facts != nil {
				for _, vs := range ps.Traced.FactValues {
					row.Values = append(row.Values, vs[j])
				}
			}
			rows[k] = append(rows[k], row)
			position[q] = ps.Positions[j]
		}
	}
	merged, err := eval.MergeRows(rows, func(q string) (int, bool) { p, ok := position[q]; return p, ok })
	if err != nil {
		return err
	}
	s.Metrics = append(slices.Clip(s.Metrics), facts...)
	s.Values = make([][]float64, len(s.Metrics))
	for _, row := range merged {
		s.Queries = append(s.Queries, row.Query)
		for m, v := range row.Values {
			s.Values[m] = append(s.Values[m], v)
		}
	}
	slices.Sort(s.Unanswerable)
	s.Unanswerable = slices.Compact(s.Unanswerable)
	m := *s.Manifest
	m.Queries = eval.DigestQueries(s.Queries)
	s.Manifest = &m
	return nil
}
