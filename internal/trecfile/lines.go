package trecfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/ragstat/ragstat/internal/diag"
)

// maxFields is one more than the widest format, so that a line with too many
// fields is seen as such.
const maxFields = 7

// lineParser splits lines into fields; its scratch space makes it unsafe for
// concurrent use.
type lineParser struct {
	f [maxFields][]byte
	s sepScanner
}

// begin starts splitting the lines of data, from its first byte.
func (p *lineParser) begin(data []byte) { p.s.data = data }

// split splits the line that starts at offset off of the data given to
// begin, as next does, and returns the offset of the line after it. Lines
// of k fields in the usual shape take the fast path.
func (p *lineParser) split(off, k int) (line []byte, n, end int) {
	data := p.s.data
	var pos [maxFields]int
	if p.s.seps(off, k, &pos) {
		from := off
		for i, j := range pos[:k] {
			p.f[i] = data[from:j]
			from = j + 1
		}
		return data[off : from-1], k, from
	}
	line, n, rest := p.next(data[off:])
	return line, n, len(data) - len(rest)
}

// next splits the first line of data into up to maxFields whitespace-
// separated fields, stored in p.f, and returns that line (without its
// newline), its number of fields in all, and the data after it. It finds the
// fields and the newline in one pass, eight bytes at a time.
func (p *lineParser) next(data []byte) (line []byte, n int, rest []byte) {
	start := 0
	emit := func(end int) {
		if end > start {
			if n < maxFields {
				p.f[n] = data[start:end]
			}
			n++
		}
		start = end + 1
	}
	i := 0
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		newlines := zeroBytes(w ^ 0x0a0a0a0a0a0a0a0a)
		for m := spaceBytes(w); m != 0; m &= m - 1 {
			j := i + bits.TrailingZeros64(m)/8
			emit(j)
			if newlines&m&-m != 0 {
				return data[:j], n, data[j+1:]
			}
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; isSpace[c] {
			emit(i)
			if c == '\n' {
				return data[:i], n, data[i+1:]
			}
		}
	}
	emit(len(data))
	return data, n, nil
}

// Byte masks for eight bytes at a time. Each sets the high bit of the bytes
// it selects and nothing else; they work on seven bits so that no carry
// crosses from one byte to the next.
const (
	low7  = 0x7f7f7f7f7f7f7f7f
	highs = 0x8080808080808080
	ones  = 0x0101010101010101
)

// zeroBytes marks the bytes of w that are 0.
func zeroBytes(w uint64) uint64 {
	return ^((w&low7 + low7) | w) & highs
}

// spaceBytes marks the bytes of w that C's isspace accepts: ' ' and '\t'
// through '\r'.
func spaceBytes(w uint64) uint64 {
	x := w & low7
	atLeast9 := x + (0x80-9)*ones
	atLeast14 := x + (0x80-14)*ones
	controls := atLeast9 &^ atLeast14 &^ w & highs
	return controls | zeroBytes(w^0x2020202020202020)
}

// run parses one run line, whose n fields are in p.f. It returns a nil qid
// for a line to skip (a blank line or comment in lenient mode) and a non-nil
// *diag.Error for a bad line.
func (p *lineParser) run(n, no int, opt *Options) (qid []byte, d RunDoc, tag []byte, err *diag.Error) {
	if n == 0 || p.f[0][0] == '#' {
		if opt.Lenient {
			return nil, d, nil, nil
		}
		return nil, d, nil, rejectLine(n, no, opt, "run")
	}
	if n != 6 && !(opt.Lenient && n > 6) {
		return nil, d, nil, p.fieldCount(n, no, opt, 6, runFormat)
	}
	f := &p.f
	d, err = runDoc(f[0], f[2], f[3], f[4], no, opt)
	if err != nil {
		return nil, d, nil, err
	}
	return f[0], d, f[5], nil
}

// runDoc reads the docno, rank and score fields of a run line that has
// the right number of fields and is not a comment.
func runDoc(qid, doc, rank, score []byte, no int, opt *Options) (d RunDoc, err *diag.Error) {
	d = RunDoc{Doc: view(doc), Line: no}
	if opt.Lenient {
		d.Score = Atof(score) // trec_eval ignores the rank column: so does lenient mode
		return d, nil
	}
	var ok bool
	if d.Score, ok = parseScore(score); !ok {
		return d, badField(qid, doc, no, opt, "score "+diag.Quote(string(score))+" is not a finite number; write scores as decimals such as 12.5 or 1e-3")
	}
	if d.Rank, ok = parseInt(rank); !ok {
		return d, badField(qid, doc, no, opt, "rank "+diag.Quote(string(rank))+notInt(rank)+"; the fourth column is the rank (1, 2, ...)")
	}
	return d, nil
}

// rejectLine reports a blank line (no fields) or a comment.
func rejectLine(n, no int, opt *Options, kind string) *diag.Error {
	msg := fmt.Sprintf("blank line; remove it (a %s file has one entry per line)", kind)
	if n > 0 {
		msg = fmt.Sprintf("comment line (starts with '#'); %s files have no comments: remove it (trec-eval skips comments)", kind)
	}
	return &diag.Error{File: opt.Name, Line: no, Msg: msg}
}

// fieldCount reports a line with the wrong number of fields.
func (p *lineParser) fieldCount(n, no int, opt *Options, want int, format string) *diag.Error {
	e := &diag.Error{File: opt.Name, Line: no}
	if n > 0 {
		e.Query = string(p.f[0])
	}
	more := ""
	if opt.Lenient && want == 6 {
		more = " or more"
	}
	e.Msg = fmt.Sprintf("found %d fields, want %d%s: %s (fields are separated by spaces or tabs)", n, want, more, format)
	return e
}

// badField reports a problem with a field of a line whose query id and
// docno are qid and doc.
func badField(qid, doc []byte, no int, opt *Options, msg string) *diag.Error {
	return &diag.Error{File: opt.Name, Line: no, Query: string(qid), Item: string(doc), Msg: msg}
}

// clampInt converts to int, saturating on 32-bit platforms.
func clampInt(v int64) int {
	if v > math.MaxInt {
		return math.MaxInt
	}
	if v < math.MinInt {
		return math.MinInt
	}
	return int(v)
}
