package eval

import "strings"

// Rows holds per-query rows compactly for CollectRows: every row's values
// in one slice and its counts in another, keyed by query, with no
// allocation per row. An evaluation fed list by list in any order (the
// stages of traces read on several cores) keeps 8 bytes per metric and
// query this way, instead of a Row and its slices.
type Rows struct {
	metrics int
	bounds  bool
	index   map[string]int32
	values  []float64 // metrics per row, then as many high ends under bounds
	counts  []int32   // returned, unjudged, folded per row
	flags   []uint8   // missing, no relevant judgment
}

const (
	rowMissing = 1 << iota
	rowNoRel
)

// NewRows holds rows of metrics values each (and their high ends when
// bounds is set: the unjudged policy bounds).
func NewRows(metrics int, bounds bool) *Rows {
	return &Rows{metrics: metrics, bounds: bounds, index: map[string]int32{}}
}

// Len is the number of queries held.
func (s *Rows) Len() int { return len(s.index) }

// Put holds r, replacing the row of its query if there was one.
func (s *Rows) Put(r Row) {
	i, ok := s.index[r.Query]
	if !ok {
		i = int32(len(s.flags))
		s.index[strings.Clone(r.Query)] = i
		s.values = append(s.values, make([]float64, s.width())...)
		s.counts = append(s.counts, 0, 0, 0)
		s.flags = append(s.flags, 0)
	}
	v := s.values[int(i)*s.width():]
	copy(v, r.Values)
	if s.bounds {
		copy(v[s.metrics:], r.High)
	}
	c := s.counts[3*i:]
	c[0], c[1], c[2] = int32(r.Returned), int32(r.Unjudged), int32(r.Folded)
	var f uint8
	if r.Missing {
		f |= rowMissing
	}
	if r.noRel {
		f |= rowNoRel
	}
	s.flags[i] = f
}

func (s *Rows) width() int {
	if s.bounds {
		return 2 * s.metrics
	}
	return s.metrics
}

// Get returns query q's row (its values in a new slice).
func (s *Rows) Get(q string) (Row, bool) {
	i, ok := s.index[q]
	if !ok {
		return Row{}, false
	}
	w := s.width()
	v := make([]float64, w)
	copy(v, s.values[int(i)*w:])
	c := s.counts[3*i:]
	r := Row{Query: q, Values: v[:s.metrics:s.metrics], Returned: int(c[0]), Unjudged: int(c[1]), Folded: int(c[2]),
		Missing: s.flags[i]&rowMissing != 0, noRel: s.flags[i]&rowNoRel != 0}
	if s.bounds {
		r.High = v[s.metrics:]
	}
	return r, true
}
