package trecfile

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
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
// order). Problems come back as an ErrorList of up to MaxErrors problems (fn
// is no longer called after the first one); an error returned by fn stops
// reading and is returned as is.
//
// Lenient mode follows trec_eval: a line whose first character is '#' is a
// comment, except directly after another comment (trec_eval skips one comment
// line at a time and reads the next as data); blank lines are errors; a grade
// reads as C's atol does.
func ReadQrels(r io.Reader, opt Options, fn func(QrelsLine) error) error {
	d := &qrelsDelivery{opt: &opt, fn: fn, pending: map[int]parsedBlock{}}
	err := pipeline(r, qrelsCut, opt.workers(), d.errs.full, func(b *block) error {
		return d.add(b.seq, parseQrelsBlock(b, &opt))
	})
	if err != nil {
		return err
	}
	if err := d.errs.err(); err != nil {
		return err
	}
	if d.lines == 0 {
		return ErrorList{{File: opt.Name, Msg: fmt.Sprintf("no judgments: the file is empty; a qrels file has lines %q", qrelsFormat)}}
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

// parsedBlock is the outcome of parsing one block of a qrels file.
type parsedBlock struct {
	lines []QrelsLine
	errs  []*Error
}

// qrelsDelivery hands parsed blocks to fn in file order.
type qrelsDelivery struct {
	opt     *Options
	fn      func(QrelsLine) error
	errs    collector
	mu      sync.Mutex
	pending map[int]parsedBlock
	next    int
	lines   int
}

// add queues a parsed block and delivers every block now in order.
func (d *qrelsDelivery) add(seq int, pb parsedBlock) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending[seq] = pb
	for {
		pb, ok := d.pending[d.next]
		if !ok {
			return nil
		}
		delete(d.pending, d.next)
		d.next++
		if err := d.deliver(pb); err != nil {
			return err
		}
	}
}

func (d *qrelsDelivery) deliver(pb parsedBlock) error {
	stopped := d.errs.any()
	for _, l := range pb.lines {
		if stopped {
			break
		}
		d.lines++
		if err := d.fn(l); err != nil {
			return err
		}
	}
	d.errs.add(pb.errs...)
	return nil
}

// parseQrelsBlock parses the lines of one block. The docnos first point
// into the block's buffer; at the end they are copied into one string, so a
// block costs one allocation for all its docnos.
func parseQrelsBlock(b *block, opt *Options) parsedBlock {
	q := &qrelsReader{opt: opt}
	pb := parsedBlock{lines: make([]QrelsLine, 0, bytes.Count(b.data, nl)+1)}
	size := 0
	eachLine(b, &q.p, func(line []byte, n, no int) error {
		l, skip, perr := q.parse(line, n, no)
		switch {
		case perr != nil:
			pb.errs = append(pb.errs, perr)
		case !skip && len(pb.errs) == 0:
			pb.lines = append(pb.lines, l)
			size += len(l.Doc)
		}
		return nil
	})
	arena := make([]byte, 0, size)
	for i := range pb.lines {
		start := len(arena)
		arena = append(arena, pb.lines[i].Doc...)
		pb.lines[i].Doc = view(arena[start:])
	}
	return pb
}

// qrelsReader parses the lines of one block.
type qrelsReader struct {
	opt         *Options
	p           lineParser
	prevComment bool
	last        QrelsLine // previous line, whose strings are reused when equal
}

// parse reads one qrels line, whose n fields are in q.p.f.
func (q *qrelsReader) parse(line []byte, n, no int) (l QrelsLine, skip bool, err *Error) {
	opt := q.opt
	comment := len(line) > 0 && line[0] == '#' && !q.prevComment
	q.prevComment = comment && opt.Lenient
	switch {
	case opt.Lenient && comment:
		return l, true, nil
	case !opt.Lenient && (n == 0 || q.p.f[0][0] == '#'):
		return l, false, rejectLine(n, no, opt, "qrels")
	}
	switch {
	case n == 0:
		return l, false, rejectLine(n, no, opt, "qrels")
	case n != 4:
		return l, false, q.p.fieldCount(n, no, opt, 4, qrelsFormat)
	}
	f := &q.p.f
	l = QrelsLine{Query: intern(q.last.Query, f[0]), Iter: intern(q.last.Iter, f[1]), Doc: view(f[2]), Line: no}
	if opt.Lenient {
		l.Grade = clampInt(Atol(f[3]))
	} else if g, ok := parseInt(f[3]); ok {
		l.Grade = g
	} else {
		return l, false, &Error{File: opt.Name, Line: no, Query: l.Query, Item: string(f[2]),
			Msg: fmt.Sprintf("grade %q is not an integer; the fourth column is the relevance grade (0, 1, 2, ...)", f[3])}
	}
	q.last = l
	return l, false, nil
}

// intern returns prev when it spells b, else a new string.
func intern(prev string, b []byte) string {
	if view(b) == prev {
		return prev
	}
	return strings.Clone(view(b))
}
