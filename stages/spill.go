package stages

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/scratch"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// Spilled holds the judgments and topics in a temporary file instead of
// memory, grouped by query, so that what an evaluation holds does not grow
// with the number of queries; Close removes the files.
type Spilled struct {
	// Format is the judgments' format, as read.
	Format input.Format
	// JudgmentsFile and TopicsFile name the files read, for messages.
	JudgmentsFile, TopicsFile string
	// The file is indexed in another (diskIndex), of which memory keeps
	// an eighth of a byte a query, and a few recently used queries. Each
	// trace's query is read back when the trace is evaluated. The judged
	// queries' records come first, in the judgments' order, so that the
	// means can be summed in that order by reading the file once.
	dir        string
	scale      judgments.Scale
	parse      topics.Parser
	f          *os.File
	index      *diskIndex
	judged     int   // records of judged queries, first in the file
	answerable int   // the answerable among them
	judgedEnd  int64 // where their records end
	cache      queryCache
}

// spillEntry is a query's entry in an index: the top 24 bits of the
// FNV-1a 64 hash of its id, then the offset of its record (40 bits, a
// terabyte), so that entries sort by hash and then by offset. Ids whose
// hashes agree are told apart by the id in their records.
type spillEntry uint64

const offBits = 40

func entry(id string, off int64) spillEntry { return spillEntry(queryHash(id)<<offBits | uint64(off)) }

func (e spillEntry) hash() uint64 { return uint64(e) >> offBits }
func (e spillEntry) off() int64   { return int64(e & (1<<offBits - 1)) }

// queryHash is the index's hash of a query id: the top 24 bits of its
// FNV-1a 64 hash.
func queryHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64() >> offBits
}

// spilledQuery is one query read back: its topic (nil when it has none),
// its judgments (nil when it has none) and, for a judged answerable query,
// its position among them in the judgments' order.
type spilledQuery struct {
	id    string
	topic *topics.Topic
	q     *judgments.Query
	pos   int // -1: not among the judged answerable queries
}

// Close removes the spill file.
func (s *Spilled) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := scratch.Remove(s.f)
	s.f = nil
	s.index.close()
	s.index = nil
	return err
}

// temp creates a temporary file beside the spill file.
func (s *Spilled) temp() (*os.File, error) { return os.CreateTemp(s.dir, "ragstat-stages-*") }

// get reads the query id back, or returns nil when it has neither a topic
// nor judgments.
func (s *Spilled) get(id string) (*spilledQuery, error) {
	if q := s.cache.get(id); q != nil {
		return q, nil
	}
	var found *spilledQuery
	err := s.index.each(queryHash(id), func(_ int, off int64) (bool, error) {
		rec, err := s.record(off)
		if err != nil || recordID(rec) != id {
			return false, err
		}
		if found, err = s.decode(rec); err != nil {
			return true, err
		}
		s.cache.put(found)
		return true, nil
	})
	return found, err
}

// record reads the record at off.
func (s *Spilled) record(off int64) ([]byte, error) { return readRecord(s.f, off) }

// readRecord reads the record of f at off: its length, then its bytes.
func readRecord(f *os.File, off int64) ([]byte, error) {
	var n [4]byte
	if _, err := f.ReadAt(n[:], off); err != nil {
		return nil, fmt.Errorf("reading a temporary file of stages: %w", err)
	}
	rec := make([]byte, binary.LittleEndian.Uint32(n[:]))
	if _, err := f.ReadAt(rec, off+4); err != nil {
		return nil, fmt.Errorf("reading a temporary file of stages: %w", err)
	}
	return rec, nil
}

// judgedQuery is what the means need of a judged answerable query: its
// id, its position among them, the line of its first judgment and its
// grades.
type judgedQuery struct {
	id     string
	pos    int
	first  int
	grades []int32
}

// eachJudged calls fn with every judged answerable query, in the
// judgments' order, reading the spill file once.
func (s *Spilled) eachJudged(fn func(judgedQuery) error) error {
	return eachRecord(s.f, s.judgedEnd, "the spill file", func(_ int64, rec []byte) error {
		d := decoder{b: rec}
		q := judgedQuery{id: string(d.bytes()), pos: int(d.uint()) - 1}
		if d.uint() > 0 {
			d.bytes()
		}
		d.uint()
		q.first = int(d.uint())
		for range d.uint() {
			d.bytes()
			q.grades = append(q.grades, int32(d.int()))
			d.uint()
			for range d.uint() {
				d.bytes()
			}
		}
		if d.err != nil {
			return d.err
		}
		if q.pos < 0 {
			return nil
		}
		return fn(q)
	})
}

// A record is the query's id, its position among the judged answerable
// queries plus one (0: none), its topic's line (0: no topic) and line
// bytes, then whether it is judged, the line of its first judgment and its
// judgments (item, grade, line, spans). Numbers are varints.

func recordID(rec []byte) string {
	n, k := binary.Uvarint(rec)
	return string(rec[k : k+int(n)])
}

// decoder reads a record's fields in order; a malformed record (which
// only a damaged file gives) sets err.
type decoder struct {
	b   []byte
	err error
}

// damaged records the damage and stops every later read.
func (d *decoder) damaged() { d.err, d.b = errors.New("damaged spill record"), nil }

func (d *decoder) uint() uint64 { return varint(d, binary.Uvarint) }

func (d *decoder) int() int64 { return varint(d, binary.Varint) }

// varint reads one number with read, or records the damage.
func varint[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	v, k := read(d.b)
	if k <= 0 {
		d.damaged()
		return 0
	}
	d.b = d.b[k:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uint()
	if uint64(len(d.b)) < n {
		d.damaged()
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (s *Spilled) decode(rec []byte) (*spilledQuery, error) {
	d := decoder{b: rec}
	q := &spilledQuery{id: string(d.bytes())}
	q.pos = int(d.uint()) - 1
	if line := int(d.uint()); line > 0 {
		raw := d.bytes()
		if d.err == nil {
			t, err := s.parse(raw)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: reading a topic again: %w", s.TopicsFile, line, err)
			}
			t.Line = line
			q.topic = t
		}
	}
	if d.uint() == 1 {
		d.uint() // the first judgment's line
		js := make([]judgments.Judgment, d.uint())
		for i := range js {
			js[i] = d.judgment(q.id)
		}
		q.q = &judgments.Query{ID: q.id}
		if len(js) > 0 && d.err == nil {
			set, err := judgments.New(s.JudgmentsFile, js, s.scale)
			if err != nil {
				return nil, err
			}
			q.q = set.Query(q.id)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return q, nil
}

func (d *decoder) judgment(query string) judgments.Judgment {
	j := judgments.Judgment{Query: query, Item: string(d.bytes()), Grade: int(d.int()), Line: int(d.uint())}
	for range d.uint() {
		j.Spans = append(j.Spans, string(d.bytes()))
	}
	return j
}

// encoder appends a record's fields.
type encoder []byte

func (e *encoder) uint(v uint64)   { *e = binary.AppendUvarint(*e, v) }
func (e *encoder) int(v int64)     { *e = binary.AppendVarint(*e, v) }
func (e *encoder) bytes(b []byte)  { e.uint(uint64(len(b))); *e = append(*e, b...) }
func (e *encoder) string(s string) { e.uint(uint64(len(s))); *e = append(*e, s...) }

func (e *encoder) judgment(j judgments.Judgment) {
	e.string(j.Item)
	e.int(int64(j.Grade))
	e.uint(uint64(j.Line))
	e.uint(uint64(len(j.Spans)))
	for _, sp := range j.Spans {
		e.string(sp)
	}
}

// appender writes length-prefixed records to a file and says where each
// starts.
type appender struct {
	f   *os.File
	w   *bufio.Writer
	off int64
}

func newAppender(f *os.File) *appender { return &appender{f: f, w: bufio.NewWriterSize(f, 1<<16)} }

func (a *appender) add(rec []byte) (int64, error) {
	at := a.off
	if at >= 1<<offBits {
		return at, fmt.Errorf("a temporary file of stages exceeds %d bytes", int64(1)<<offBits)
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(rec)))
	a.w.Write(n[:])
	_, err := a.w.Write(rec)
	a.off += 4 + int64(len(rec))
	return at, err
}

// read reads back the record at off; the writer is flushed first.
func (a *appender) read(off int64) ([]byte, error) {
	if err := a.w.Flush(); err != nil {
		return nil, err
	}
	return readRecord(a.f, off)
}

// queryCache keeps the queries read back most recently, a few dozen, for
// traces of one query that come together (several systems, retries).
type queryCache struct {
	mu   sync.Mutex
	ring [64]*spilledQuery
	next int
}

func (c *queryCache) get(id string) *spilledQuery {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, q := range c.ring {
		if q != nil && q.id == id {
			return q
		}
	}
	return nil
}

func (c *queryCache) put(q *spilledQuery) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ring[c.next] = q
	c.next = (c.next + 1) % len(c.ring)
}

// firstByLine gathers the problems found after reading (repeated topics)
// with those found while reading, and keeps the first diag.Max by line, as
// a reader that stops once diag.Max are found keeps them.
func firstByLine(read error, found []error) error {
	if len(found) == 0 {
		return read
	}
	var all diag.List
	all.Add(read)
	errs := append(slices.Clone(all.Errs()), found...)
	slices.SortStableFunc(errs, func(a, b error) int {
		fa, la := position(a)
		fb, lb := position(b)
		return cmp.Or(cmp.Compare(fa, fb), cmp.Compare(la, lb))
	})
	var out diag.List
	for _, e := range errs {
		if out.Add(e) {
			break
		}
	}
	return out.Err()
}

func position(err error) (string, int) {
	var e *diag.Error
	if errors.As(err, &e) {
		return e.File, e.Line
	}
	return "", 0
}
