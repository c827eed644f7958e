package eval

import (
	"encoding/binary"
	"io"
	"math"
	"os"
	"strings"
)

// Rows holds per-query rows for CollectRows compactly, keyed by query:
// 8 bytes a metric and query and no allocation per row, for an evaluation
// fed list by list in any order (the stages of traces read on several
// cores).
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

// get returns query q's row (its values in a new slice).
func (s *Rows) get(q string) (Row, bool) {
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

// RowFile holds per-query rows in a file instead of memory, each at its
// query's position in the judgments' order: a later Put at a position
// replaces the row there, and a position never written reads as absent.
type RowFile struct {
	metrics int
	bounds  bool
	f       *os.File
}

// rowPresent marks a written record.
const rowPresent = 1 << 7

// NewRowFile keeps rows of metrics values each (and their high ends when
// bounds is set) in f, typically a temporary file.
func NewRowFile(f *os.File, metrics int, bounds bool) *RowFile {
	return &RowFile{metrics: metrics, bounds: bounds, f: f}
}

// size is the bytes of one record: the values, the three counts, the
// flags.
func (s *RowFile) size() int {
	w := s.metrics
	if s.bounds {
		w *= 2
	}
	return 8*w + 12 + 1
}

// Put writes r at position i.
func (s *RowFile) Put(i int, r Row) error {
	buf := make([]byte, 0, s.size())
	for k := range s.metrics {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(valueAt(r.Values, k)))
	}
	if s.bounds {
		for k := range s.metrics {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(valueAt(r.High, k)))
		}
	}
	for _, c := range []int{r.Returned, r.Unjudged, r.Folded} {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(c))
	}
	f := uint8(rowPresent)
	if r.Missing {
		f |= rowMissing
	}
	if r.noRel {
		f |= rowNoRel
	}
	_, err := s.f.WriteAt(append(buf, f), int64(i)*int64(s.size()))
	return err
}

// valueAt is xs[k], or 0 past its end (a row with no values: its query has
// no relevant judgment).
func valueAt(xs []float64, k int) float64 {
	if k < len(xs) {
		return xs[k]
	}
	return 0
}

// Get reads the row at position i, of query q, and whether one was put
// there.
func (s *RowFile) Get(i int, q string) (Row, bool, error) {
	buf := make([]byte, s.size())
	n, err := s.f.ReadAt(buf, int64(i)*int64(s.size()))
	if n < len(buf) {
		if err == io.EOF {
			err = nil // past the last row written
		}
		return Row{}, false, err
	}
	flags := buf[len(buf)-1]
	if flags&rowPresent == 0 {
		return Row{}, false, nil
	}
	r := Row{Query: q, Missing: flags&rowMissing != 0, noRel: flags&rowNoRel != 0}
	read := func() []float64 {
		v := make([]float64, s.metrics)
		for k := range v {
			v[k] = math.Float64frombits(binary.LittleEndian.Uint64(buf))
			buf = buf[8:]
		}
		return v
	}
	r.Values = read()
	if s.bounds {
		r.High = read()
	}
	r.Returned = int(binary.LittleEndian.Uint32(buf))
	r.Unjudged = int(binary.LittleEndian.Uint32(buf[4:]))
	r.Folded = int(binary.LittleEndian.Uint32(buf[8:]))
	return r, true, nil
}
