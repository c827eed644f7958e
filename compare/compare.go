// Package compare compares a base system with one or more candidates over
// the same queries: for every metric and candidate the paired difference
// with its bootstrap interval, randomization and t-test p-values corrected
// across the comparisons made, an effect size, win/tie/loss counts, the
// queries that moved most, the same per slice of the queries, alerts for a
// slice that regresses while the whole set does not, and a release gate.
//
// A Side is one system's per-query values (FromResult takes an evaluated
// run's). Run refuses sides whose frozen fields differ, aligns them on the
// metrics and queries they share, slices the queries by their topics and
// compares: Compare is the pure core, a Table of per-query values and
// Options (a seed among them) in, a Result out. Part and Merge split a
// comparison by query across processes and merge it back, bit for bit.
// The statistics come from package stats; renderers format a Result
// without computing anything.
package compare

import (
	"fmt"

	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
)

// Table is what compare reads: per-query values of every metric for a base
// system and its candidates, aligned on the same queries. Any source fits
// it: runs evaluated now, saved results, the stages of traces.
type Table struct {
	Queries []string
	Metrics []string
	Systems []System // Systems[0] is the base
	// Text holds each query's text, aligned with Queries; nil when unknown.
	Text []string
}

// System is one system's values and, when known, its rankings.
type System struct {
	Name string
	// Values holds, by metric then by query, the value of Metrics[m] on
	// Queries[q].
	Values [][]float64
	// Rankings says, by query, where the judged items sit; nil when
	// unknown (a saved result keeps no rankings).
	Rankings []Ranking
}

// Ranking is one query's ranked list as the regressions view shows it.
type Ranking struct {
	// Top is the head of the list with the grade of every judged item.
	Top []Item `json:"top,omitempty"`
	// Relevant lists every judged relevant item, with Rank 0 when the list
	// does not contain it, in rank order, then the unreturned ones best grade first.
	Relevant []Item `json:"relevant,omitempty"`
}

// Item is one ranked or judged item.
type Item struct {
	ID     string `json:"id"`
	Rank   int    `json:"rank,omitempty"` // 1-based; 0 when not returned
	Grade  int    `json:"grade"`
	Judged bool   `json:"judged"`
}

// Options configure a comparison. The zero value asks for the defaults.
type Options struct {
	// Stats sets the interval level, resample and randomization counts
	// and the seed.
	Stats stats.Options
	// Correction adjusts the p-values of a family; "" means Holm.
	Correction stats.Correction
	// Top is how many regressions and improvements to list per metric and
	// candidate; 0 means 10.
	Top int
	// MinSlice is the number of queries below which a slice is marked too
	// small to say anything; 0 means 10.
	MinSlice int
	Slices   []topics.Slice
}

// Defaults for zero Options fields.
const (
	defaultTop      = 10
	defaultMinSlice = 10
)

func (o Options) withDefaults() Options {
	if o.Correction == "" {
		o.Correction = stats.Holm
	}
	if o.Top == 0 {
		o.Top = defaultTop
	}
	if o.MinSlice == 0 {
		o.MinSlice = defaultMinSlice
	}
	if o.Stats.Level == 0 {
		o.Stats.Level = stats.DefaultLevel
	}
	if o.Stats.Resamples == 0 {
		o.Stats.Resamples = stats.DefaultResamples
	}
	if o.Stats.Randomizations == 0 {
		o.Stats.Randomizations = stats.DefaultRandomizations
	}
	return o
}

// check reports what makes t unusable.
func (t *Table) check() error {
	if len(t.Systems) < 2 {
		return fmt.Errorf("compare needs a base and at least one candidate, got %d system(s)", len(t.Systems))
	}
	if len(t.Text) != 0 && len(t.Text) != len(t.Queries) {
		return fmt.Errorf("%d query texts for %d queries", len(t.Text), len(t.Queries))
	}
	for _, s := range t.Systems {
		if len(s.Values) != len(t.Metrics) {
			return fmt.Errorf("system %q: %d metrics, want %d", s.Name, len(s.Values), len(t.Metrics))
		}
		for m, v := range s.Values {
			if len(v) != len(t.Queries) {
				return fmt.Errorf("system %q, %s: %d values for %d queries", s.Name, t.Metrics[m], len(v), len(t.Queries))
			}
		}
		if s.Rankings != nil && len(s.Rankings) != len(t.Queries) {
			return fmt.Errorf("system %q: %d rankings for %d queries", s.Name, len(s.Rankings), len(t.Queries))
		}
	}
	return nil
}

// pairs lists the comparisons, candidate by candidate, metric by metric.
func (t *Table) pairs() []stats.Pair {
	var out []stats.Pair
	base := t.Systems[0]
	for _, c := range t.Systems[1:] {
		for m := range t.Metrics {
			out = append(out, stats.Pair{Base: base.Values[m], Cand: c.Values[m]})
		}
	}
	return out
}

// Compare compares every candidate of t with its base on every metric, on
// the whole set and on every slice of opt.
func Compare(t *Table, opt Options) (*Result, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	r := newResult(t, opt)
	pairs := t.pairs()
	var err error
	if r.Comparisons, err = r.family(pairs, opt); err != nil {
		return nil, err
	}
	if err := r.compareSlices(pairs, opt); err != nil {
		return nil, err
	}
	r.Extremes = extremes(t, opt.Top)
	r.Alerts = r.alerts()
	r.Notes = append(r.Notes, r.disagreements()...)
	return r, nil
}
