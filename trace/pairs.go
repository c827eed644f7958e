package trace

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/scratch"
)

// seenPairs records the (query, system) pair of every trace handed on, to
// reject a second trace of one pair, exactly (ids are compared, not only
// hashes), in memory that does not grow with the traces. The pairs since
// the last run, a window of at most windowPairs pairs and about
// windowBytes bytes of ids, are held in a table: a second trace of one of
// them is rejected at once and not handed on. A full window is sorted and
// written to a temporary file as a run; when reading ends the runs are
// merged, and each later trace of a pair found in two runs is reported
// then, after it was handed on.
type seenPairs struct {
	seed maphash.Seed
	// The window's bounds (windowPairs, windowBytes) and how many runs one
	// pass of the merge reads at once (mergeFan).
	maxPairs, maxBytes, fan int
	recs                    []pairRec
	ids                     []byte   // the window's ids, query then system, recs point into them
	slots                   []uint32 // index+1 into recs by hash, linear probing, at most half full
	runs                    []*os.File
}

// pairRec is a pair of the window: its hash, its trace's line, and where
// its ids lie in seenPairs.ids.
type pairRec struct {
	h        uint64
	line     int
	at       int
	nq, nsys int
}

// The window's bounds, a few MiB, and how many runs one pass of the merge
// reads at once, 32 KiB each.
const (
	windowPairs = 1 << 16
	windowBytes = 4 << 20
	mergeFan    = 16
)

func newSeenPairs() *seenPairs {
	return &seenPairs{seed: maphash.MakeSeed(), maxPairs: windowPairs, maxBytes: windowBytes, fan: mergeFan}
}

// pairHash hashes a (query, system) pair, the query's length first so that
// no two pairs write the same bytes.
func pairHash(seed maphash.Seed, query, system string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(query)))
	h.Write(n[:])
	h.WriteString(query)
	h.WriteString(system)
	return h.Sum64()
}

func (s *seenPairs) query(r *pairRec) []byte  { return s.ids[r.at : r.at+r.nq] }
func (s *seenPairs) system(r *pairRec) []byte { return s.ids[r.at+r.nq : r.at+r.nq+r.nsys] }

// add records the pair of the trace at line, whose hash is h (pairHash),
// and returns (0, false), or, when the window holds the pair already, its
// line and true. It fails only when a run cannot be written.
func (s *seenPairs) add(h uint64, query, system string, line int) (int, bool, error) {
	if 2*(len(s.recs)+1) > len(s.slots) {
		s.index(max(64, 2*len(s.slots)))
	}
	mask := uint64(len(s.slots) - 1)
	i := h & mask
	for ; s.slots[i] != 0; i = (i + 1) & mask {
		r := &s.recs[s.slots[i]-1]
		if r.h == h && string(s.query(r)) == query && string(s.system(r)) == system {
			return r.line, true, nil
		}
	}
	s.recs = append(s.recs, pairRec{h: h, line: line, at: len(s.ids), nq: len(query), nsys: len(system)})
	s.ids = append(append(s.ids, query...), system...)
	s.slots[i] = uint32(len(s.recs))
	if len(s.recs) == s.maxPairs || len(s.ids) >= s.maxBytes {
		return 0, false, s.spill()
	}
	return 0, false, nil
}

// index makes a table of n slots (a power of two) over the window.
func (s *seenPairs) index(n int) {
	if len(s.slots) != n {
		s.slots = make([]uint32, n)
	} else {
		clear(s.slots)
	}
	mask := uint64(n - 1)
	for k := range s.recs {
		i := s.recs[k].h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = uint32(k + 1)
	}
}

// spill writes the window, sorted, to a new run and empties it.
func (s *seenPairs) spill() error {
	slices.SortFunc(s.recs, func(a, b pairRec) int {
		return comparePairs(a.h, s.query(&a), s.system(&a), a.line, b.h, s.query(&b), s.system(&b), b.line)
	})
	f, err := s.newRun()
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	for k := range s.recs {
		r := &s.recs[k]
		writePair(w, pair{h: r.h, line: r.line, query: s.query(r), system: s.system(r)})
	}
	if err := w.Flush(); err != nil {
		return pairsFailed(err)
	}
	s.recs, s.ids = s.recs[:0], s.ids[:0]
	clear(s.slots)
	return nil
}

func (s *seenPairs) newRun() (*os.File, error) {
	f, err := os.CreateTemp("", "ragstat-pairs-*")
	if err != nil {
		return nil, pairsFailed(err)
	}
	s.runs = append(s.runs, f)
	return f, nil
}

func pairsFailed(err error) error {
	return fmt.Errorf("keeping the (query, system) pairs seen in a temporary file: %w", err)
}

// comparePairs orders pairs by hash, ids and line.
func comparePairs(ha uint64, qa, sa []byte, la int, hb uint64, qb, sb []byte, lb int) int {
	return cmp.Or(cmp.Compare(ha, hb), slices.Compare(qa, qb), slices.Compare(sa, sb), cmp.Compare(la, lb))
}

// pair is one record of a run.
type pair struct {
	h             uint64
	line          int
	query, system []byte
}

func (p *pair) compare(o *pair) int {
	return comparePairs(p.h, p.query, p.system, p.line, o.h, o.query, o.system, o.line)
}

// writePair writes p as a run's record: the hash, the line, each id with
// its length. Errors surface at the writer's Flush.
func writePair(w *bufio.Writer, p pair) {
	var b [8 + 3*binary.MaxVarintLen64]byte
	binary.LittleEndian.PutUint64(b[:], p.h)
	n := binary.PutUvarint(b[8:], uint64(p.line)) + 8
	n += binary.PutUvarint(b[n:], uint64(len(p.query)))
	w.Write(b[:n])
	w.Write(p.query)
	w.Write(binary.AppendUvarint(b[:0], uint64(len(p.system))))
	w.Write(p.system)
}

// runReader reads a run's records in order.
type runReader struct {
	r   *bufio.Reader
	cur pair
	ok  bool
	err error
}

func newRunReader(f *os.File) *runReader {
	r := &runReader{r: bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 32<<10)}
	r.next()
	return r
}

// next reads the next record into cur; ok is false at the end or on a
// failure (err).
func (r *runReader) next() {
	var h [8]byte
	if _, err := io.ReadFull(r.r, h[:]); err != nil {
		r.ok = false
		if err != io.EOF {
			r.err = pairsFailed(err)
		}
		return
	}
	line, err := binary.ReadUvarint(r.r)
	if err == nil {
		r.cur = pair{h: binary.LittleEndian.Uint64(h[:]), line: int(line)}
		if r.cur.query, err = r.bytes(); err == nil {
			r.cur.system, err = r.bytes()
		}
	}
	if err != nil {
		r.ok, r.err = false, pairsFailed(err)
		return
	}
	r.ok = true
}

func (r *runReader) bytes() ([]byte, error) {
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r.r, b)
	return b, err
}

// merge calls fn with the records of runs in order.
func merge(runs []*os.File, fn func(pair) error) error {
	rs := make([]*runReader, len(runs))
	for i, f := range runs {
		rs[i] = newRunReader(f)
	}
	for {
		var least *runReader
		for _, r := range rs {
			if r.err != nil {
				return r.err
			}
			if r.ok && (least == nil || r.cur.compare(&least.cur) < 0) {
				least = r
			}
		}
		if least == nil {
			return nil
		}
		if err := fn(least.cur); err != nil {
			return err
		}
		least.next()
	}
}

// finish merges the runs, if any, and returns a problem for each later
// trace of a pair found in two of them: the first diag.Max by line, and
// the count of the others.
func (s *seenPairs) finish(file string) error {
	if len(s.runs) == 0 {
		return nil
	}
	if err := s.spill(); err != nil {
		return err
	}
	for len(s.runs) > s.fan {
		f, err := s.newRun()
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<16)
		if err := merge(s.runs[:s.fan], func(p pair) error { writePair(w, p); return nil }); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return pairsFailed(err)
		}
		for _, r := range s.runs[:s.fan] {
			scratch.Remove(r)
		}
		s.runs = s.runs[s.fan:]
	}
	var first pair
	var found []*diag.Error // the first diag.Max by line
	more := 0
	err := merge(s.runs, func(p pair) error {
		if first.query == nil || p.h != first.h || string(p.query) != string(first.query) || string(p.system) != string(first.system) {
			first = p
			return nil
		}
		e := &diag.Error{File: file, Line: p.line, Query: string(p.query),
			Msg: fmt.Sprintf("system %q has a second trace for this query (also line %d)", p.system, first.line)}
		i, _ := slices.BinarySearchFunc(found, e, func(a, b *diag.Error) int { return cmp.Compare(a.Line, b.Line) })
		if i >= diag.Max {
			more++
			return nil
		}
		if found = slices.Insert(found, i, e); len(found) > diag.Max {
			found, more = found[:diag.Max], more+1
		}
		return nil
	})
	if err != nil {
		return err
	}
	var out diag.List
	for _, e := range found {
		out.Add(e)
	}
	for range more { // counted, past the kept ones
		out.Add(found[0])
	}
	return out.Err()
}

// close removes the runs.
func (s *seenPairs) close() {
	for _, f := range s.runs {
		scratch.Remove(f)
	}
	s.runs = nil
}
