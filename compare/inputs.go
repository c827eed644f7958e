package compare

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
)

// Side is one system as a comparison reads it, before the systems are
// aligned on the metrics and queries they share: values by metric, then by
// query.
type Side struct {
	Name     string
	Manifest *eval.Manifest // what its values were computed from
	Metrics  []string
	Queries  []string
	Values   [][]float64
	Rankings map[string]Ranking // by query; nil when unknown (a saved result)
	Config   json.RawMessage    // traces: the pipeline configuration
	Loss     *Loss              // traces: where evidence stopped
	// Cost prices a traced system's queries (nil: not priced); Latencies
	// are its traces' end-to-end latencies, in milliseconds, one a trace
	// that records any.
	Cost      *stages.CostReport
	Latencies []float64
	// LeftOut says which traced queries have no values and why (traces:
	// an unanswerable query has no ranked-list metric).
	LeftOut []string
	// Positions gives, in one shard of a split by query, each query's
	// place in the order one run over every query reads them; nil
	// otherwise.
	Positions []int
	// Traces is, in one shard, on the first side of a trace file: the
	// file's partial stages result, from which Merge makes every side of
	// the file.
	Traces *PartialTraces
}

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

// FromStages lays a traced system's per-stage rows out as one side whose
// metrics are "stage/metric", plus "stage/facts" (required-fact coverage)
// when every query has facts; name, when given, renames the system.
func FromStages(sys *stages.System, name string) *Side {
	s := &Side{Name: sys.Name, Loss: &Loss{System: sys.Name, Evidence: sys.Loss.Steps, Facts: sys.FactLoss.Steps}}
	if name != "" {
		s.Name, s.Loss.System = name, name
	}
	if len(sys.Configs) > 0 {
		s.Config = json.RawMessage(sys.Configs[0])
	}
	if sys.Analyses != nil {
		s.Cost = sys.Analyses.Cost
	}
	for _, row := range sys.Stages[0].Eval.Rows {
		s.Queries = append(s.Queries, row.Query)
	}
	for _, st := range sys.Stages {
		values := map[string][]float64{}
		for _, row := range st.Eval.Rows {
			for i, m := range st.Eval.Metrics {
				values[m.Name()] = append(values[m.Name()], row.Values[i])
			}
		}
		for _, m := range st.Eval.Metrics {
			s.Metrics = append(s.Metrics, st.Name+"/"+m.Name())
			s.Values = append(s.Values, values[m.Name()])
		}
	}
	return s.withFacts(sys)
}

// withFacts adds each stage's per-query required-fact coverage.
func (s *Side) withFacts(sys *stages.System) *Side {
	byQuery := map[string]stages.QueryFacts{}
	for _, qf := range sys.Facts {
		byQuery[qf.Query] = qf
	}
	for _, q := range s.Queries {
		if _, ok := byQuery[q]; !ok {
			return s // facts apply to some queries only: not a per-query table
		}
	}
	for i, st := range sys.Stages {
		col := make([]float64, len(s.Queries))
		for k, q := range s.Queries {
			qf := byQuery[q]
			col[k] = float64(qf.Supported[i]) / float64(qf.Facts)
		}
		s.Metrics = append(s.Metrics, st.Name+"/facts")
		s.Values = append(s.Values, col)
	}
	return s
}

// Check refuses sides that differ from the base (and the base from the
// reference: the judgments given) in a frozen field, unless the field is
// allowed; allowed differences come back as notes. Sides that record no
// manifest (built in memory) have nothing frozen to check.
func Check(ref *eval.Manifest, sides []*Side, allow []string) ([]string, error) {
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
	checks := []pair{{"--judgments vs " + base.Name, eval.FrozenDiff(&given, base.Manifest)}}
	for _, s := range sides[1:] {
		checks = append(checks, pair{base.Name + " vs " + s.Name, eval.FrozenDiff(base.Manifest, s.Manifest)})
	}
	var notes, refused []string
	for _, ch := range checks {
		for _, m := range ch.diff {
			line := ch.what + ": " + m.String()
			if slices.Contains(allow, m.Field) {
				notes = append(notes, "allowed mismatch (--allow-mismatch "+m.Field+"): "+line)
			} else {
				refused = append(refused, "  "+line)
			}
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("the inputs are not comparable, frozen fields differ:\n%s\nfix the inputs, or allow one field at a time with --allow-mismatch FIELD", strings.Join(refused, "\n"))
	}
	return notes, nil
}

// ConfigNotes says which configuration fields differ between the base and
// each candidate, and warns of a comparison that changes more than one
// component at once: its difference cannot be attributed to either.
func ConfigNotes(sides []*Side) ([]string, error) {
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

// Align puts every side on the metrics and queries they all have, in the
// base's order (they differ only where a mismatch was allowed), and says
// what was left out.
func Align(sides []*Side) (*Table, []string) {
	base := sides[0]
	t := &Table{Metrics: common(sides, base.Metrics, func(s *Side) []string { return s.Metrics }),
		Queries: common(sides, base.Queries, func(s *Side) []string { return s.Queries })}
	var notes []string
	for _, s := range sides {
		notes = append(notes, s.LeftOut...)
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
