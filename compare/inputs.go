package compare

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/metric"
)

// Side is one system as a comparison reads it, before the systems are
// aligned on the metrics and queries they share: values by metric, then by
// query.
type Side struct {
	Name     string
	Manifest *eval.Manifest // what its values were computed from; nil when built in memory
	Metrics  []string
	Queries  []string
	Values   [][]float64
	Rankings map[string]Ranking // by query; nil when unknown (a saved result)
	// A traced system's configuration (first seen at ConfigAt), losses,
	// cost per query, end-to-end latencies (ms), unanswerable queries left
	// out, and how many of the last metrics are stages' fact coverage.
	Config       json.RawMessage
	ConfigAt     Place
	Loss         *Loss
	Cost         *Cost
	Latencies    []float64
	Unanswerable []string
	Facts        int
	// In one shard of a split by query: the input the side comes from
	// (from 0), a traced system's first trace, stages and loss statuses
	// in pipeline order (stages.Statuses), and each query's place in the
	// order one run reads them.
	Input     int
	First     Place
	Stages    []string
	Order     []string
	Positions []int
}

// Cost is what a traced system's queries cost: the mean per query, over
// Queries queries.
type Cost struct {
	PerQuery float64
	Queries  int
}

// Place is where a trace was read.
type Place struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// before reports whether p comes before o: by file, then line.
func (p Place) before(o Place) bool { return p.File < o.File || p.File == o.File && p.Line < o.Line }

// FromResult takes the per-query values of one evaluated run. A result
// under the unjudged policy bounds has two values a query and cannot be compared.
func FromResult(res *eval.Result, file string) (*Side, error) {
	s := &Side{Name: res.Name, Values: make([][]float64, len(res.Metrics))}
	for _, m := range res.Metrics {
		if err := averaged(m); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		s.Metrics = append(s.Metrics, m.Name())
	}
	for _, row := range res.Rows {
		if row.High != nil {
			return nil, fmt.Errorf("%s: %s holds [low, high] bounds (the unjudged policy bounds); compare needs one value a query: use the unjudged policy nonrelevant or skip", file, res.Name)
		}
		s.Queries = append(s.Queries, row.Query)
		for m, v := range row.Values {
			s.Values[m] = append(s.Values[m], v)
		}
	}
	return s, nil
}

// averaged refuses a metric whose summary is not the mean of its
// per-query values: compare's differences, intervals and tests are about
// that mean, and would be mislabelled.
func averaged(m metric.Metric) error {
	switch m.Agg {
	case metric.Sum:
		return fmt.Errorf("%s is summed over queries, not averaged: compare its per-query mean with %s instead", m.Name(), map[string]string{
			"num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet"}[m.Family.Name])
	case metric.GeoMean:
		return fmt.Errorf("%s's summary is a geometric mean: compare AP (map) instead", m.Name())
	}
	return nil
}

// check refuses sides that differ from the base (and the base from the
// reference: the judgments given) in a frozen field, unless the field is
// allowed; allowed differences come back as notes. Sides that record no
// manifest (built in memory) have nothing frozen to check.
func check(ref *eval.Manifest, sides []*Side, allow []string, names func(option string) string) ([]string, error) {
	base := sides[0]
	for _, s := range sides {
		if s.Manifest == nil {
			return nil, nil
		}
	}
	given := *base.Manifest
	given.Judgments = ref.Judgments
	type pair struct {
		what string
		diff []eval.Mismatch
	}
	checks := []pair{{diag.Expand("{judgments}", names) + " vs " + base.Name, eval.FrozenDiff(&given, base.Manifest)}}
	for _, s := range sides[1:] {
		checks = append(checks, pair{base.Name + " vs " + s.Name, eval.FrozenDiff(base.Manifest, s.Manifest)})
	}
	var notes, refused []string
	for _, ch := range checks {
		for _, m := range ch.diff {
			line := ch.what + ": " + m.String()
			if slices.Contains(allow, m.Field) {
				notes = append(notes, diag.Expand("allowed mismatch ({allow_mismatch} ", names)+m.Field+"): "+line)
			} else {
				refused = append(refused, "  "+diag.Literal(line))
			}
		}
	}
	if len(refused) > 0 {
		return nil, &diag.OptionError{Msg: fmt.Sprintf("the inputs are not comparable, frozen fields differ:\n%s\nfix the inputs, or allow one field at a time with {allow_mismatch} FIELD", strings.Join(refused, "\n"))}
	}
	return notes, nil
}

// configNotes says which configuration fields differ between the base and
// each candidate, and warns of a comparison that changes more than one
// component at once: its difference cannot be attributed to either.
func configNotes(sides []*Side) ([]string, error) {
	base := sides[0]
	var notes []string
	for _, s := range sides[1:] {
		if base.Config == nil && s.Config == nil {
			continue
		}
		paths, components, err := configDiff(base.Config, s.Config)
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			notes = append(notes, fmt.Sprintf("config: %s and %s record the same configuration", base.Name, s.Name))
			continue
		}
		notes = append(notes, fmt.Sprintf("config: %s differs from %s in %s", s.Name, base.Name, strings.Join(paths, ", ")))
		if len(components) > 1 {
			notes = append(notes, fmt.Sprintf("WARNING: %s changes %d components at once (%s): a difference cannot be attributed to one; change one component at a time when diagnosing causes",
				s.Name, len(components), strings.Join(components, ", ")))
		}
	}
	return notes, nil
}

// align puts every side on the metrics and queries they all have, in the
// base's order (they differ only where a mismatch was allowed), and says
// what was left out.
func align(sides []*Side) (*Table, []string) {
	base := sides[0]
	t := &Table{Metrics: common(sides, base.Metrics, func(s *Side) []string { return s.Metrics }),
		Queries: common(sides, base.Queries, func(s *Side) []string { return s.Queries })}
	var notes []string
	for _, s := range sides {
		if len(s.Unanswerable) > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d unanswerable queries left out: no ranked-list metric applies; ragstat stages scores their abstention: %s",
				s.Name, len(s.Unanswerable), listIDs(s.Unanswerable)))
		}
		if n := len(s.Queries) - len(t.Queries); n > 0 {
			var out []string
			for _, q := range s.Queries {
				if !slices.Contains(t.Queries, q) {
					out = append(out, q)
				}
			}
			notes = append(notes, fmt.Sprintf("%s: %d queries not in every input left out: %s", s.Name, n, listIDs(out)))
		}
		t.Systems = append(t.Systems, s.system(t))
	}
	return t, notes
}

// listIDs joins the first ten ids and counts the rest.
func listIDs(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}

// common lists the ids of order that every side has.
func common(sides []*Side, order []string, ids func(*Side) []string) []string {
	var out []string
	for _, id := range order {
		if !slices.ContainsFunc(sides, func(s *Side) bool { return !slices.Contains(ids(s), id) }) {
			out = append(out, id)
		}
	}
	return out
}

// system takes s's values on the table's metrics and queries.
func (s *Side) system(t *Table) System {
	sys := System{Name: s.Name}
	qi := make(map[string]int, len(s.Queries))
	for i, q := range s.Queries {
		qi[q] = i
	}
	for _, m := range t.Metrics {
		vals := s.Values[slices.Index(s.Metrics, m)]
		col := make([]float64, len(t.Queries))
		for i, q := range t.Queries {
			col[i] = vals[qi[q]]
		}
		sys.Values = append(sys.Values, col)
	}
	if s.Rankings != nil {
		for _, q := range t.Queries {
			sys.Rankings = append(sys.Rankings, s.Rankings[q])
		}
	}
	return sys
}
