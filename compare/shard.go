package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/digest"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/topics"
)

// Partial is what the comparison of one shard of a split by query
// (Part), which computes no statistics, carries so that Merge makes
// the comparison of every query: each side as read, with its queries'
// places in the order one run reads them, the topics of the compared
// queries and the settings the statistics and the gate need. Statistics
// over queries are never combined from shards: Merge computes them anew.
type Partial struct {
	Sides []PartialSide `json:"sides"`
	// Topics are the compared queries' topics (text, tags, family,
	// answerable); nil when no topics were given.
	Topics *PartialTopics `json:"topics"`
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

// PartialSide is one side of a shard's comparison as read, before
// alignment.
type PartialSide struct {
	Name     string         `json:"name"`
	Manifest *eval.Manifest `json:"manifest"`
	Metrics  []string       `json:"metrics"`
	Queries  []string       `json:"queries"`
	// Positions gives each query's place in the order one run reads them.
	Positions []int       `json:"positions"`
	Values    [][]float64 `json:"values"` // by metric, then query
	// Rankings is null when unknown (a saved result).
	Rankings map[string]Ranking `json:"rankings"`
	// Traces, when present, stands for every side of a trace file: the
	// side's other fields are empty.
	Traces *PartialTraces `json:"traces,omitempty"`
}

// PartialTraces is what one shard read of a trace file: its partial
// stages result (as ragstat stages --shard writes it), and by system the
// end-to-end latency of each trace that records one and the unanswerable
// queries traced.
type PartialTraces struct {
	Name         string               `json:"name,omitempty"` // the name given to the file's system
	Manifest     *eval.Manifest       `json:"manifest"`       // its sides' record, without the query set
	Stages       json.RawMessage      `json:"stages"`
	Latencies    map[string][]float64 `json:"latencies"`
	Unanswerable map[string][]string  `json:"unanswerable"`
}

// PartialTopics are the topics a shard's comparison read, those of its
// compared queries.
type PartialTopics struct {
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
// every query), and records what Merge needs: the topics set's compared
// queries (nil: none), and in ref the shard's record (shard, its judged
// positions filled in; nil: none) with the digest of the sides.
func Part(ref *eval.Manifest, sides []*Side, set *topics.Set, cfg Config, shard *eval.Shard) (*Result, error) {
	p := &Partial{Options: cfg.Options, SliceBy: cfg.SliceBy, FailOnSignificant: cfg.FailOnSignificant,
		GateSlices: cfg.GateSlices, Quality: cfg.Quality}
	for _, r := range cfg.FailOn {
		p.FailOn = append(p.FailOn, r.text)
	}
	for _, s := range sides {
		switch {
		case s.Traces != nil:
			p.Sides = append(p.Sides, PartialSide{Traces: s.Traces})
		case s.Loss == nil:
			p.Sides = append(p.Sides, PartialSide{Name: s.Name, Manifest: s.Manifest, Metrics: s.Metrics, Queries: s.Queries,
				Positions: s.Positions, Values: s.Values, Rankings: s.Rankings})
		}
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
		p.Topics = &PartialTopics{File: set.File}
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
// manifest for the merge to check. A trace file's side counts by its
// partial stages result, which carries its own digest, checked as the
// traces are merged.
func (p *Partial) Digest() string {
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
	}
	return d.Sum()
}

// Merge makes, from the partial comparisons of every shard of one split
// (each once, their manifests and settings alike: package shard checks
// that), the comparison one run over every query makes, bit for bit: each
// side's queries back in the order one run reads them, then alignment,
// slices, statistics (with the recorded seed), gate and gate power
// computed on the merged values exactly as Run computes them. It returns
// the result and the reasons the gate failed, as Run does. readStages
// reads a trace file's partial stages result (PartialTraces.Stages), with
// each of its judged queries' positions.
func Merge(parts []*Result, readStages func(json.RawMessage) (*stages.Result, map[string]int, error)) (*Result, []string, error) {
	first := parts[0].Partial
	merged := make([]*Side, len(first.Sides))
	traced := make([][]*PartialTraces, len(first.Sides))
	var tps []*topics.Topic
	for _, part := range parts {
		p := part.Partial
		if len(p.Sides) != len(first.Sides) {
			return nil, nil, fmt.Errorf("the parts compare %d and %d inputs", len(first.Sides), len(p.Sides))
		}
		for i, ps := range p.Sides {
			if (ps.Traces == nil) != (first.Sides[i].Traces == nil) {
				return nil, nil, fmt.Errorf("input %d of the parts is traces in one and not in another", i+1)
			}
			if (ps.Traces == nil && ps.Manifest == nil) || (ps.Traces != nil && ps.Traces.Manifest == nil) {
				return nil, nil, fmt.Errorf("input %d of a part has no manifest: give partial results written by ragstat compare --shard I/N --format json", i+1)
			}
			if ps.Traces != nil {
				traced[i] = append(traced[i], ps.Traces)
				continue
			}
			if merged[i] == nil {
				merged[i] = &Side{Name: ps.Name, Metrics: ps.Metrics, Values: make([][]float64, len(ps.Metrics))}
				if ps.Rankings != nil {
					merged[i].Rankings = map[string]Ranking{}
				}
			}
			s := merged[i]
			if ps.Name != s.Name || !slices.Equal(ps.Metrics, s.Metrics) || len(ps.Values) != len(s.Metrics) || len(ps.Positions) != len(ps.Queries) {
				return nil, nil, fmt.Errorf("system %d of the parts is not one system: %s (%v) vs %s (%v)", i+1, s.Name, s.Metrics, ps.Name, ps.Metrics)
			}
			s.Manifest = ps.Manifest
			s.Queries = append(s.Queries, ps.Queries...)
			s.Positions = append(s.Positions, ps.Positions...)
			for m, vs := range ps.Values {
				if len(vs) != len(ps.Queries) {
					return nil, nil, fmt.Errorf("system %s, %s: %d values for %d queries", s.Name, s.Metrics[m], len(vs), len(ps.Queries))
				}
				s.Values[m] = append(s.Values[m], vs...)
			}
			maps.Copy(s.Rankings, ps.Rankings)
		}
		if p.Topics != nil {
			for _, t := range p.Topics.Topics {
				if t == nil {
					return nil, nil, fmt.Errorf("a part lists a null topic: give partial results written by ragstat compare --shard I/N --format json")
				}
				tps = append(tps, t)
			}
		}
	}
	ref := *parts[0].Manifest
	ref.Shard, ref.Configs = nil, nil
	var sides []*Side
	for i, s := range merged {
		if s != nil {
			s.inOrder()
			sides = append(sides, s)
			continue
		}
		ts, err := mergeTraces(traced[i], readStages)
		if err != nil {
			return nil, nil, err
		}
		sides = append(sides, ts...)
	}
	if len(sides) < 2 {
		return nil, nil, fmt.Errorf("compare needs a base and at least one candidate; the parts hold %d system", len(sides))
	}
	cfg := Config{Options: first.Options, SliceBy: first.SliceBy, AllowMismatch: parts[0].Manifest.Allowed,
		FailOnSignificant: first.FailOnSignificant, GateSlices: first.GateSlices, Quality: first.Quality}
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

// mergeTraces merges every shard's stages result of one trace file
// (stages.Merge) and lays its systems out as sides.
func mergeTraces(parts []*PartialTraces, readStages func(json.RawMessage) (*stages.Result, map[string]int, error)) ([]*Side, error) {
	results := make([]*stages.Result, len(parts))
	positions := map[string]int{}
	all := &PartialTraces{Name: parts[0].Name, Manifest: parts[0].Manifest, Latencies: map[string][]float64{}, Unanswerable: map[string][]string{}}
	for i, p := range parts {
		res, pos, err := readStages(p.Stages)
		if err != nil {
			return nil, err
		}
		results[i] = res
		maps.Copy(positions, pos)
		for sys, ms := range p.Latencies {
			all.Latencies[sys] = append(all.Latencies[sys], ms...)
		}
		for sys, qs := range p.Unanswerable {
			all.Unanswerable[sys] = append(all.Unanswerable[sys], qs...)
		}
	}
	res, err := stages.Merge(results, func(q string) (int, bool) { pos, ok := positions[q]; return pos, ok })
	if err != nil {
		return nil, err
	}
	return all.Sides(res), nil
}

// inOrder sorts a merged side's queries by their places in the order one
// run reads them, and records its query set.
func (s *Side) inOrder() {
	idx := make([]int, len(s.Queries))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(s.Positions[a], s.Positions[b]) })
	qs := make([]string, len(idx))
	for k, i := range idx {
		qs[k] = s.Queries[i]
	}
	for m, vs := range s.Values {
		col := make([]float64, len(idx))
		for k, i := range idx {
			col[k] = vs[i]
		}
		s.Values[m] = col
	}
	s.Queries, s.Positions = qs, nil
	m := *s.Manifest
	m.Queries = eval.DigestQueries(qs)
	s.Manifest = &m
}
