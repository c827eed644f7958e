package trecfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/ragstat/ragstat/internal/diag"
)

const qrelsFormat = "qid iter docid grade"

// QrelsLine is one line of a qrels file: qid iter docno grade. Strings are owned by the caller.
type QrelsLine struct {
	Query, Iter, Doc string
	Grade            int
	Line             int
}

// ReadQrels reads a qrels file and calls fn for each line in file order, from
// one goroutine at a time (blocks are parsed in parallel, lines delivered in
// order). Problems come back as a *diag.List of up to MaxErrors problems (fn
// is no longer called after the first one); an error returned by fn stops
// reading and is returned as is.
//
// Lenient mode follows trec_eval: a line whose first character is '#' is a
// comment, except directly after another comment (trec_eval skips one comment
// line at a time and reads the next as data); blank lines are errors; a grade
// reads as C's atol does.
func ReadQrels(r io.Reader, opt Options, fn func(QrelsLine) error) error {
	return readQrels(r, opt, nil, (*parsedBlock).ownDocs, func(pb *parsedBlock) error {
		for i := range pb.recs {
			if err := fn(pb.line(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// QrelsGroup is a stretch of consecutive lines of one query in a qrels
// file, in file order, as columns: line i judges the docno Doc(i) with
// Grades[i] on line Lines[i]. It is valid only during the call it is
// passed to: Docs too shares a buffer that is reused (strings.Clone to
// keep it).
type QrelsGroup struct {
	Query  string
	Docs   string   // the docnos, concatenated
	Ends   []uint32 // docno i ends at Docs[Ends[i]] and starts where docno i-1 ends (at 0 for i = 0)
	Grades []int
	Lines  []int
}

// Doc returns the i-th docno.
func (g *QrelsGroup) Doc(i int) string {
	start := uint32(0)
	if i > 0 {
		start = g.Ends[i-1]
	}
	return g.Docs[start:g.Ends[i]]
}

// ReadQrelsGroups reads a qrels file as ReadQrels does, with the same rules
// and problems, but calls fn once per stretch of consecutive lines of one
// query (a query's lines may come in several stretches, even when they are
// contiguous in the file). The stretches are cut and laid out as columns on
// the parallel parsers, so that fn, called in file order from one goroutine
// at a time, costs little per line. The iter column is not kept.
func ReadQrelsGroups(r io.Reader, opt Options, fn func(*QrelsGroup) error) error {
	var recs, free sync.Pool // []qrelsRec of blocks cut into groups, *qrelsGroups delivered: for reuse
	return readQrels(r, opt, &recs, func(pb *parsedBlock) *qrelsGroups {
		gs, _ := free.Get().(*qrelsGroups)
		if gs == nil {
			gs = &qrelsGroups{}
		}
		gs.fill(pb)
		return gs
	}, func(gs *qrelsGroups) error {
		defer free.Put(gs)
		for i := range gs.groups {
			if err := fn(&gs.groups[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// qrelsGroups is a parsed block cut into QrelsGroups, which share its
// columns.
type qrelsGroups struct {
	groups []QrelsGroup
	docs   []byte
	ends   []uint32
	grades []int
	lines  []int
}

// fill cuts the lines of pb into groups.
func (gs *qrelsGroups) fill(pb *parsedBlock) {
	n := len(pb.recs)
	gs.groups = gs.groups[:0]
	gs.docs = slices.Grow(gs.docs[:0], pb.docBytes) // never grown below: the groups' Docs stay valid
	gs.ends = slices.Grow(gs.ends[:0], n)[:n]
	gs.grades = slices.Grow(gs.grades[:0], n)[:n]
	gs.lines = slices.Grow(gs.lines[:0], n)[:n]
	for from := 0; from < n; {
		q := &pb.recs[from]
		to := from + 1
		for to < n && (pb.recs[to].query == q.query || pb.names[pb.recs[to].query] == pb.names[q.query]) {
			to++
		}
		start := len(gs.docs)
		for i := from; i < to; i++ {
			r := &pb.recs[i]
			gs.docs = append(gs.docs, pb.data[r.doc:r.docEnd]...)
			gs.ends[i], gs.grades[i], gs.lines[i] = uint32(len(gs.docs)-start), r.grade, r.line
		}
		gs.groups = append(gs.groups, QrelsGroup{Query: pb.names[q.query], Docs: view(gs.docs[start:]),
			Ends: gs.ends[from:to], Grades: gs.grades[from:to], Lines: gs.lines[from:to]})
		from = to
	}
}

// readQrels parses the blocks of a qrels file in parallel, turns each into
// a T with prepare (on the parsing goroutine), and hands them to use in file
// order, one at a time, until the first problem. With recs, the records of
// a block are reused once prepare returns: prepare must not keep them.
func readQrels[T any](r io.Reader, opt Options, recs *sync.Pool, prepare func(*parsedBlock) T, use func(T) error) error {
	d := &qrelsDelivery[T]{use: use}
	err := pipeline(opt.Name, r, qrelsCut, opt.workers(), d.errs.full, func(b *block) error {
		var buf []qrelsRec
		if recs != nil {
			buf, _ = recs.Get().([]qrelsRec)
		}
		pb := parseQrelsBlock(b, &opt, buf)
		part := qrelsPart[T]{v: prepare(pb), lines: len(pb.recs), errs: pb.errs}
		if recs != nil {
			recs.Put(pb.recs[:0])
		}
		return d.order.add(b.seq, part, d.deliver)
	})
	if err != nil {
		return err
	}
	if err := d.errs.err(); err != nil {
		return err
	}
	if d.lines == 0 {
		return list(&diag.Error{File: opt.Name, Msg: fmt.Sprintf("no judgments: the file is empty; a qrels file has lines %q", qrelsFormat)})
	}
	return nil
}

// qrelsCut ends a block after its last newline, moved back past comment
// lines so that no block starts right after a comment (whether a '#' line is
// a comment depends on the line before it).
func qrelsCut(data []byte) int {
	end := lineCut(data)
	for end > 0 {
		start := bytes.LastIndexByte(data[:end-1], '\n') + 1
		if data[start] != '#' {
			return end
		}
		end = start
	}
	return 0
}

// parsedBlock is the outcome of parsing one block of a qrels file: its
// lines as pointer-free records (cheap for the garbage collector while they
// wait for their turn), the strings they refer to, and its problems.
type parsedBlock struct {
	recs     []qrelsRec
	names    []string // query ids and iter values, each stored once per run of equal values
	data     []byte   // the block's bytes, until ownDocs
	docs     string   // every docno of the block, concatenated, after ownDocs
	docBytes int      // their length
	errs     []*diag.Error
}

// qrelsRec is one parsed qrels line.
type qrelsRec struct {
	query, iter uint32 // indexes into names
	doc, docEnd uint32 // the docno is data[doc:docEnd], or docs[doc:docEnd] after ownDocs
	grade, line int
}

// ownDocs copies the docnos out of the block's buffer, which is reused,
// into one string, so the block costs one allocation for all its docnos.
func (pb *parsedBlock) ownDocs() *parsedBlock {
	docs := make([]byte, 0, pb.docBytes)
	for i := range pb.recs {
		r := &pb.recs[i]
		start := len(docs)
		docs = append(docs, pb.data[r.doc:r.docEnd]...)
		r.doc, r.docEnd = uint32(start), uint32(len(docs))
	}
	pb.docs, pb.data = view(docs), nil
	return pb
}

// line rebuilds the QrelsLine of record i.
func (pb *parsedBlock) line(i int) QrelsLine {
	r := &pb.recs[i]
	return QrelsLine{Query: pb.names[r.query], Iter: pb.names[r.iter], Doc: pb.docs[r.doc:r.docEnd], Grade: r.grade, Line: r.line}
}

// qrelsPart is one block of a qrels file, prepared for delivery: its lines
// read without problems, how many, and its problems.
type qrelsPart[T any] struct {
	v     T
	lines int
	errs  []*diag.Error
}

// qrelsDelivery hands prepared blocks to use in file order.
type qrelsDelivery[T any] struct {
	use   func(T) error
	errs  collector
	order inOrder[qrelsPart[T]]
	lines int
}

func (d *qrelsDelivery[T]) deliver(p qrelsPart[T]) error {
	// Only deliver adds problems, one block at a time: none can appear
	// during the call.
	if !d.errs.any() {
		d.lines += p.lines
		if err := d.use(p.v); err != nil {
			return err
		}
	}
	d.errs.add(p.errs...)
	return nil
}

// parseQrelsBlock parses the lines of one block into recs, reused. The
// docnos are left in the block's buffer.
func parseQrelsBlock(b *block, opt *Options, recs []qrelsRec) *parsedBlock {
	q := &qrelsReader{opt: opt, pb: &parsedBlock{recs: slices.Grow(recs[:0], bytes.Count(b.data, nl)+1), data: b.data}}
	data := b.data
	q.p.begin(data)
	var pos [maxFields]int
	for off, no := 0, b.line; off < len(data); no++ {
		if queryLoops && q.last.qid != nil && len(q.pb.errs) == 0 {
			// the lines that go on the last one's query, in a loop of their own
			if off, no = q.sameQuery(data, off, no); off == len(data) {
				break
			}
		}
		var perr *diag.Error
		if q.p.s.seps(off, 4, &pos) && data[off] != '#' { // the usual line, its fields read in place
			q.prevComment = false
			perr = q.record(data[off:pos[0]], data[pos[0]+1:pos[1]], data[pos[1]+1:pos[2]], data[pos[2]+1:pos[3]], no, data)
			off = pos[3] + 1
		} else {
			var line []byte
			var n int
			line, n, off = q.p.split(off, 4)
			perr = q.parse(line, n, no, data)
		}
		if perr != nil {
			if q.pb.errs = append(q.pb.errs, perr); len(q.pb.errs) == MaxErrors {
				break
			}
		}
	}
	return q.pb
}

// qrelsReader parses the lines of one block.
type qrelsReader struct {
	opt         *Options
	p           lineParser
	pb          *parsedBlock
	prevComment bool
	last        struct{ qid, iter []byte } // of the last line recorded, in the block
}

// parse reads one qrels line, whose n fields are in q.p.f, and records it
// unless it is a comment; data is the block the fields point into.
func (q *qrelsReader) parse(line []byte, n, no int, data []byte) *diag.Error {
	opt := q.opt
	comment := len(line) > 0 && line[0] == '#' && !q.prevComment
	q.prevComment = comment && opt.Lenient
	switch {
	case opt.Lenient && comment:
		return nil
	case n == 0 || !opt.Lenient && q.p.f[0][0] == '#':
		return rejectLine(n, no, opt, "qrels")
	case n != 4:
		return q.p.fieldCount(n, no, opt, 4, qrelsFormat)
	}
	f := &q.p.f
	return q.record(f[0], f[1], f[2], f[3], no, data)
}

// record reads the grade of a qrels line of four fields that is not a
// comment, and records the line.
func (q *qrelsReader) record(qid, iter, docno, g []byte, no int, data []byte) *diag.Error {
	grade, ok := 0, true
	if q.opt.Lenient {
		grade = clampInt(Atol(g))
	} else {
		grade, ok = parseInt(g)
	}
	if !ok {
		return &diag.Error{File: q.opt.Name, Line: no, Query: string(qid), Item: string(docno),
			Msg: "grade " + diag.Quote(string(g)) + notInt(g) + "; the fourth column is the relevance grade (0, 1, 2, ...)"}
	}
	if len(q.pb.errs) > 0 {
		return nil
	}
	doc := offsetIn(data, docno)
	q.pb.docBytes += len(docno)
	q.pb.recs = append(q.pb.recs, qrelsRec{query: q.name(qid), iter: q.name(iter),
		doc: doc, docEnd: doc + uint32(len(docno)), grade: grade, line: no})
	q.last.qid, q.last.iter = qid, iter
	return nil
}

// sameQuery records the lines from offset off of data, the first numbered
// no, that the usual path of parseQrelsBlock reads and that have the query
// id and iter of the last line recorded, up to the first that does not or
// that ends within 64 bytes of the end of data; it returns the offset and
// number of that line. Every test is the usual path's, so a line it leaves
// is read by that path instead.
func (q *qrelsReader) sameQuery(data []byte, off, no int) (int, int) {
	if off+64 > len(data) {
		return off, no
	}
	qid, iter := q.last.qid, q.last.iter
	n, m := len(qid), len(iter)
	// Their first eight bytes, masked to their lengths: both start before
	// off, which is 64 bytes from the end.
	qmask, imask := ^uint64(0)>>(64-8*min(n, 8)), ^uint64(0)>>(64-8*min(m, 8))
	qword := binary.LittleEndian.Uint64(unsafe.Slice(&qid[0], 8)) & qmask
	iword := binary.LittleEndian.Uint64(unsafe.Slice(&iter[0], 8)) & imask
	prev := q.pb.recs[len(q.pb.recs)-1]
	from := off
	for ; off+64 <= len(data); no++ {
		w := data[off : off+64 : off+64]
		// The usual four fields, not a comment, the first two the query id
		// and iter.
		low, blank, newline := masks64(&w[0])
		seps, end := usualSeps(low, blank, newline, 4)
		if end == 0 || w[0] == '#' ||
			bits.TrailingZeros64(seps) != n || binary.LittleEndian.Uint64(w)&qmask != qword || n > 8 && view(w[:n]) != view(qid) {
			break
		}
		seps &= seps - 1
		iterTo := bits.TrailingZeros64(seps)
		if iterTo-n-1 != m || binary.LittleEndian.Uint64(w[n+1:])&imask != iword || m > 8 && view(w[n+1:iterTo]) != view(iter) {
			break
		}
		seps &= seps - 1
		docTo := bits.TrailingZeros64(seps)
		// the grade: up to eight digits, read as one word of the window
		// (without a sign, C's atol reads them as the strict path does)
		digits := bits.TrailingZeros64(end) - docTo - 1
		if digits > 8 || docTo+9 > len(w) {
			break
		}
		g := binary.LittleEndian.Uint64(w[docTo+1:])
		if nonDigits(g)<<(64-8*digits) != 0 {
			break
		}
		doc := uint32(off + iterTo + 1)
		q.pb.docBytes += docTo - iterTo - 1
		q.pb.recs = append(q.pb.recs, qrelsRec{query: prev.query, iter: prev.iter,
			doc: doc, docEnd: uint32(off + docTo), grade: int(eightDigits(g, digits)), line: no})
		off += bits.TrailingZeros64(end) + 1
	}
	if off > from { // a line that is no comment came after whatever came before
		q.prevComment = false
	}
	return off, no
}

// name returns the index of b in the block's names, adding it unless it
// equals one of the last two (a query id and an iter value alternate).
func (q *qrelsReader) name(b []byte) uint32 {
	names := q.pb.names
	for i := len(names) - 1; i >= 0 && i >= len(names)-2; i-- {
		if names[i] == view(b) {
			return uint32(i)
		}
	}
	q.pb.names = append(names, string(b))
	return uint32(len(names))
}

// offsetIn returns the position of field within data, which contains it.
func offsetIn(data, field []byte) uint32 {
	return uint32(cap(data) - cap(field))
}
