package trecfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ragstat/ragstat/internal/diag"
)

// RunDoc is one line of a TREC run: qid Q0 docno rank score tag.
type RunDoc struct {
	Doc   string  // may alias a buffer that is reused after the callback returns (strings.Clone to keep it)
	Score float64 // the score column
	Rank  int     // the rank column (ragstat's --order rank uses it); not read in lenient mode, which follows trec_eval in ignoring it
	Line  int     // 1-based line number in the file
}

// RunQuery is every line of one query, in file order.
type RunQuery struct {
	Query   string // as Doc: copy to keep
	Tag     string // the tag (run name) column of its first line
	LastTag string // the tag column of its last line (trec_eval names a run after the file's last line)
	Docs    []RunDoc
}

// Options says how to read.
type Options struct {
	Name    string // file name used in error messages
	Workers int    // parallel parsers; 0 means runtime.GOMAXPROCS(0)
	Lenient bool   // trec_eval's acceptance rules instead of ragstat's strict ones

	// Redeliver makes ReadRun read a run once instead of checking its
	// grouping first: if a query turns out to reappear after another query
	// (the run is not grouped), ReadRun reads the run again, grouped in
	// memory, and delivers every query again. fn must then let a later
	// delivery of a query replace the earlier one.
	Redeliver bool
}

const runFormat = "qid Q0 docid rank score tag"

// ReadRun streams a run, calling fn once per query with all of that query's lines, possibly from
// several goroutines at once (fn must be safe for concurrent use; the RunQuery and its strings are
// valid only during the call). open may be called more than once (to re-read the input).
// A run whose lines are not grouped by query still comes out right: every query is delivered once
// with all its lines in file order (a first pass checks the grouping; an ungrouped run is then
// grouped in memory). With Options.Redeliver the first pass is skipped.
//
// Problems in the file come back as a *diag.List of up to MaxErrors problems; once a problem is
// found fn is no longer called, and the queries delivered before it should be discarded.
// An error returned by fn stops reading and is returned as is.
func ReadRun(open func() (io.ReadCloser, error), opt Options, fn func(*RunQuery) error) error {
	s := &runStream{opt: &opt, fn: fn}
	if opt.Redeliver {
		s.check = newGroupCheck()
		err := withInput(open, s.stream)
		if err != nil || s.errs.any() || !s.check.failed() {
			return s.finish(err)
		}
		return s.finish(withInput(open, s.inMemory))
	}
	var grouped bool
	err := withInput(open, func(r io.Reader) (err error) {
		grouped, err = isGrouped(r, &opt)
		return err
	})
	if err != nil {
		return err
	}
	if grouped {
		err = withInput(open, s.stream)
	} else {
		err = withInput(open, s.inMemory)
	}
	return s.finish(err)
}

// withInput opens the input, runs f on it and closes it.
func withInput(open func() (io.ReadCloser, error), f func(io.Reader) error) error {
	rc, err := open()
	if err != nil {
		return err
	}
	err = f(rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return err
}

// isGrouped reports whether every query's lines are contiguous. It reads
// blocks in parallel, lists the query ids of each block, and checks the lists
// in input order.
func isGrouped(r io.Reader, opt *Options) (bool, error) {
	m := newGroupCheck()
	err := pipeline(opt.Name, r, lineCut, opt.workers(), m.failed, func(b *block) error {
		m.add(b.seq, blockKeys(b.data))
		return nil
	})
	return !m.failed(), err
}

// blockKeys lists the query ids of a block, once per run of equal ids.
func blockKeys(data []byte) []string {
	var keys []string
	var last []byte
	for line := range bytes.Lines(data) {
		if n := len(last); n > 0 && len(line) > n && isSpace[line[n]] && bytes.Equal(line[:n], last) {
			continue // the common case: the same query as the line before
		}
		if k := lineKey(line); k != nil && !bytes.Equal(k, last) {
			keys = append(keys, string(k))
			last = k
		}
	}
	return keys
}

// groupCheck merges per-block query id lists in block order and notes a
// query id that reappears after another query started.
type groupCheck struct {
	order      inOrder[[]string]
	seen       map[string]struct{}
	last       string
	reappeared atomic.Bool
}

func newGroupCheck() *groupCheck {
	return &groupCheck{seen: map[string]struct{}{}}
}

func (m *groupCheck) add(seq int, keys []string) {
	m.order.add(seq, keys, m.merge)
}

func (m *groupCheck) merge(keys []string) error {
	for _, k := range keys {
		if k == m.last {
			continue
		}
		if _, dup := m.seen[k]; dup {
			m.reappeared.Store(true)
		}
		m.seen[k] = struct{}{}
		m.last = k
	}
	return nil
}

func (m *groupCheck) failed() bool { return m.reappeared.Load() }

// runStream delivers the queries of one run.
type runStream struct {
	opt     *Options
	fn      func(*RunQuery) error
	check   *groupCheck // with Redeliver: the grouping check done while streaming
	errs    collector
	queries atomic.Int64
	pool    sync.Pool
}

// stream parses a grouped run block by block on all workers.
func (s *runStream) stream(r io.Reader) error {
	return pipeline(s.opt.Name, r, queryCut, s.opt.workers(), s.stop, s.parseBlock)
}

// stop reports whether streaming should end early.
func (s *runStream) stop() bool {
	return s.errs.full() || s.check != nil && s.check.failed()
}

// parseBlock parses the lines of one block and delivers its queries.
func (s *runStream) parseBlock(b *block) error {
	q, _ := s.pool.Get().(*RunQuery)
	if q == nil {
		q = &RunQuery{}
	}
	defer s.pool.Put(q)
	q.Docs = q.Docs[:0]
	var p lineParser
	var bad []*diag.Error
	var keys []string
	var err error
	// A plain loop rather than eachLine: this runs once per line of a run.
	data := b.data
	p.begin(data)
	var pos [maxFields]int
	for off, no := 0, b.line; off < len(data) && err == nil; no++ {
		if queryLoops && len(q.Docs) > 0 && len(bad) == 0 {
			// the lines that go on the query in the usual shape, in a loop
			// of their own
			if off, no = sameQuery(q, data, off, no, s.opt.Lenient); off == len(data) {
				break
			}
		}
		var qid, tag []byte
		var d RunDoc
		var perr *diag.Error
		if p.s.seps(off, 6, &pos) && data[off] != '#' { // the usual line, its fields read in place
			// seps found off < pos[0] < ... < pos[5] < len(data): the ids
			// are cut without a bounds check each; the numbers keep the
			// block's capacity, which their parsers read eight bytes of.
			qid, tag = field(data, off, pos[0]), field(data, pos[4]+1, pos[5])
			doc := field(data, pos[1]+1, pos[2])
			rank, score := data[pos[2]+1:pos[3]], data[pos[3]+1:pos[4]]
			// the usual numbers, without runDoc's call (lenient mode reads no rank)
			d = RunDoc{Doc: view(doc), Line: no}
			var ok bool
			d.Score, ok = shortDecimal(score)
			if ok && !s.opt.Lenient {
				d.Rank, ok = parseInt(rank)
			}
			if !ok {
				d, perr = runDoc(qid, doc, rank, score, no, s.opt)
			}
			off = pos[5] + 1
		} else {
			var n int
			_, n, off = p.split(off, 6)
			qid, d, tag, perr = p.run(n, no, s.opt)
		}
		switch {
		case perr != nil:
			if bad = append(bad, perr); len(bad) == MaxErrors {
				err = errBlockFull // the rest of the block cannot be among the first problems
			}
			continue
		case qid == nil || len(bad) > 0:
			continue
		}
		if len(q.Docs) == 0 || view(qid) != q.Query { // a query starts
			if s.check != nil && (len(keys) == 0 || view(qid) != keys[len(keys)-1]) {
				keys = append(keys, string(qid))
			}
			if len(q.Docs) > 0 {
				if err = s.deliver(q); err != nil {
					break
				}
				q.Docs = q.Docs[:0]
			}
			q.Query, q.Tag = view(qid), view(tag)
		}
		q.LastTag = view(tag)
		q.Docs = append(q.Docs, d)
	}
	if err == errBlockFull {
		err = nil
	} else if err == nil && len(bad) == 0 && len(q.Docs) > 0 {
		err = s.deliver(q)
	}
	s.errs.add(bad...)
	if s.check != nil {
		s.check.add(b.seq, keys)
	}
	return err
}

// queryLoops says whether the readers take the lines that go on the query
// of the line before them through a loop of their own (sameQuery and
// qrelsReader.sameQuery); only tests turn it off, to check that the loops
// read every input exactly as the usual path does.
var queryLoops = true

// sameQuery appends to q.Docs the lines from offset off of data, the
// first numbered no, that parseBlock reads on its usual path and that go
// on q's query, up to the first that does not or that ends within 64 bytes
// of the end of data; it returns the offset and number of that line. q
// has at least one line, whose query id lies earlier in data. Every test
// is the usual path's, so a line it leaves is read by that path instead;
// lenient reads no rank, as that path.
func sameQuery(q *RunQuery, data []byte, off, no int, lenient bool) (int, int) {
	if off+64 > len(data) {
		return off, no
	}
	docs := q.Docs
	n := len(q.Query)
	// The query id's first eight bytes, masked to its length: it starts
	// before off, which is 64 bytes from the end.
	mask := ^uint64(0) >> (64 - 8*min(n, 8))
	id := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(q.Query), 8)) & mask
	tag := -1 // the tag of the last line appended: from, to
	var tagTo int
	for ; off+64 <= len(data); no++ {
		w := data[off : off+64 : off+64]
		// The usual six fields, the first the query id (so not a comment:
		// no query id starts with '#').
		low, blank, newline := masks64(&w[0])
		seps, end := usualSeps(low, blank, newline, 6)
		if end == 0 || bits.TrailingZeros64(seps) != n || binary.LittleEndian.Uint64(w)&mask != id ||
			n > 8 && view(w[:n]) != q.Query {
			break
		}
		seps &= seps - 1 // the query id's end is known; the second field, Q0, is not read
		docFrom := bits.TrailingZeros64(seps) + 1
		seps &= seps - 1
		docTo := bits.TrailingZeros64(seps)
		seps &= seps - 1
		rankTo := bits.TrailingZeros64(seps)
		seps &= seps - 1
		scoreTo := bits.TrailingZeros64(seps)
		lineTo := bits.TrailingZeros64(end)
		rank := 0
		if !lenient { // up to eight digits, read as one word of the window
			digits := rankTo - docTo - 1
			if digits > 8 || docTo+9 > len(w) {
				break
			}
			r := binary.LittleEndian.Uint64(w[docTo+1:])
			if nonDigits(r)<<(64-8*digits) != 0 {
				break
			}
			rank = int(eightDigits(r, digits))
		}
		score, ok := shortDecimal(data[off+rankTo+1 : off+scoreTo])
		if !ok {
			break
		}
		docs = append(docs, RunDoc{Doc: view(w[docFrom:docTo]), Score: score, Rank: rank, Line: no})
		tag, tagTo = off+scoreTo+1, off+lineTo
		off += lineTo + 1
	}
	q.Docs = docs
	if tag >= 0 {
		q.LastTag = view(data[tag:tagTo])
	}
	return off, no
}

// field is data[from:to] for 0 <= from <= to <= len(data), which the
// caller has established, without checking it again.
func field(data []byte, from, to int) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(data)), from)), to-from)
}

// deliver calls fn unless a problem has been found.
func (s *runStream) deliver(q *RunQuery) error {
	if s.errs.any() {
		return nil
	}
	s.queries.Add(1)
	return s.fn(q)
}

// eachLine calls f for every line of a block, split into p.f, with its
// number of fields and its line number; k is the usual number of fields.
func eachLine(b *block, p *lineParser, k int, f func(line []byte, n, no int) error) error {
	p.begin(b.data)
	for off, no := 0, b.line; off < len(b.data); no++ {
		line, n, end := p.split(off, k)
		if err := f(line, n, no); err != nil {
			return err
		}
		off = end
	}
	return nil
}

// inMemory groups an ungrouped run in memory, then delivers its queries in
// order of first appearance.
func (s *runStream) inMemory(r io.Reader) error {
	index := map[string]int{}
	var all []*RunQuery
	var p lineParser
	err := pipeline(s.opt.Name, r, lineCut, 1, s.errs.full, func(b *block) error {
		var bad []*diag.Error
		eachLine(b, &p, 6, func(_ []byte, n, no int) error {
			qid, d, tag, perr := p.run(n, no, s.opt)
			if perr != nil {
				if bad = append(bad, perr); len(bad) == MaxErrors {
					return errBlockFull
				}
			} else if qid != nil {
				all = keep(all, index, qid, d, tag)
			}
			return nil
		})
		s.errs.add(bad...)
		return nil
	})
	if err != nil || s.errs.any() {
		return err
	}
	return s.deliverAll(all)
}

// keep appends a line to its query, copying the strings it must own.
func keep(all []*RunQuery, index map[string]int, qid []byte, d RunDoc, tag []byte) []*RunQuery {
	i, ok := index[view(qid)]
	if !ok {
		i = len(all)
		t := string(tag)
		q := &RunQuery{Query: string(qid), Tag: t}
		index[q.Query] = i
		all = append(all, q)
	}
	q := all[i]
	if t := view(tag); t != q.LastTag {
		q.LastTag = strings.Clone(t)
	}
	d.Doc = strings.Clone(d.Doc)
	q.Docs = append(q.Docs, d)
	return all
}

// deliverAll calls fn for every query, on all workers.
func (s *runStream) deliverAll(all []*RunQuery) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range s.opt.workers() {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(all)); i = next.Add(1) - 1 {
				if err := s.deliver(all[i]); err != nil {
					once.Do(func() { first = err })
					return
				}
				all[i] = nil
			}
		})
	}
	wg.Wait()
	return first
}

// finish turns the outcome into ReadRun's error.
func (s *runStream) finish(err error) error {
	if err != nil {
		return err
	}
	if err := s.errs.err(); err != nil {
		return err
	}
	if s.queries.Load() == 0 {
		return list(&diag.Error{File: s.opt.Name, Msg: fmt.Sprintf("no run lines: the file is empty or holds only blank lines and comments; a TREC run has lines %q", runFormat)})
	}
	return nil
}
