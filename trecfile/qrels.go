package trecfile

import (
	"fmt"
	"io"
	"strings"
)

const qrelsFormat = "qid iter docid grade"

// QrelsLine is one line of a qrels file: qid iter docno grade. Strings are owned by the caller.
type QrelsLine struct {
	Query, Iter, Doc string
	Grade            int
	Line             int
}

// ReadQrels reads a qrels file and calls fn for each line in file order, from
// the calling goroutine. Problems come back as an ErrorList of up to
// MaxErrors problems (fn is no longer called after the first one); an error
// returned by fn stops reading and is returned as is.
//
// Lenient mode follows trec_eval: a line whose first character is '#' is a
// comment, except directly after another comment (trec_eval skips one comment
// line at a time and reads the next as data); blank lines are errors; a grade
// reads as C's atol does.
func ReadQrels(r io.Reader, opt Options, fn func(QrelsLine) error) error {
	q := &qrelsReader{opt: &opt, fn: fn}
	if err := pipeline(r, lineCut, 1, q.errs.full, q.parseBlock); err != nil {
		return err
	}
	if err := q.errs.err(); err != nil {
		return err
	}
	if q.lines == 0 {
		return ErrorList{{File: opt.Name, Msg: fmt.Sprintf("no judgments: the file is empty; a qrels file has lines %q", qrelsFormat)}}
	}
	return nil
}

// qrelsReader holds the state of one ReadQrels call.
type qrelsReader struct {
	opt         *Options
	fn          func(QrelsLine) error
	p           lineParser
	errs        collector
	lines       int
	prevComment bool
	last        QrelsLine // previous line, whose strings are reused when equal
}

func (q *qrelsReader) parseBlock(b *block) error {
	return eachLine(b, &q.p, func(line []byte, n, no int) error {
		l, skip, perr := q.parse(line, n, no)
		switch {
		case perr != nil:
			q.errs.add(perr)
		case skip || q.errs.any():
		default:
			q.lines++
			return q.fn(l)
		}
		return nil
	})
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
	l = QrelsLine{Query: intern(q.last.Query, f[0]), Iter: intern(q.last.Iter, f[1]), Doc: string(f[2]), Line: no}
	if opt.Lenient {
		l.Grade = clampInt(Atol(f[3]))
	} else if g, ok := parseInt(f[3]); ok {
		l.Grade = g
	} else {
		return l, false, &Error{File: opt.Name, Line: no, Query: l.Query, Item: l.Doc,
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
