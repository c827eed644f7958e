package trecfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ragstat/ragstat/internal/diag"
)

// blockSize is how much input one parser receives at a time: small enough
// that a block read is still in the core's cache when it is parsed, and that
// the few blocks in flight cost little memory.
var blockSize = 256 << 10

// MaxLine is the longest line a reader accepts: no TREC line comes near it,
// and a file without newlines (binary data, a decompression bomb) is refused
// once this much of it is read instead of being held whole.
const MaxLine = 1 << 20

// MaxBlock is the most a reader holds at once: all of one query's lines of a
// grouped run, or a stretch of qrels comment lines, must fit.
const MaxBlock = 1 << 30

// block is a run of complete lines of the input.
type block struct {
	buf  []byte // the whole buffer, recycled after use
	data []byte // complete lines (the last may lack its newline at EOF)
	line int    // 1-based line number of the first line of data
	seq  int    // position of the block in the input, from 0
}

// blockReader cuts an input into blocks of complete lines. cut chooses where
// a block ends: it returns how many bytes of data to keep (after a newline),
// or 0 when data holds no acceptable end and the block must grow.
type blockReader struct {
	name  string // for messages
	r     io.Reader
	cut   func(data []byte) int
	carry []byte      // bytes read but not yet handed out
	free  chan []byte // buffers of blocks already parsed, for reuse
	line  int
	seq   int
	eof   bool
}

// newBlockReader reads r in blocks; up to keep buffers handed back by
// recycle are reused.
func newBlockReader(name string, r io.Reader, cut func([]byte) int, keep int) *blockReader {
	return &blockReader{name: name, r: r, cut: cut, line: 1, free: make(chan []byte, keep)}
}

// next returns the next block, or io.EOF when the input is exhausted.
func (br *blockReader) next() (*block, error) {
	if br.eof && len(br.carry) == 0 {
		return nil, io.EOF
	}
	buf := br.buffer(max(blockSize, 2*len(br.carry)))
	n := copy(buf, br.carry)
	for {
		m, err := br.fill(buf[n:cap(buf)])
		n += m
		if err != nil {
			return nil, err
		}
		end := n
		if !br.eof {
			end = br.cut(buf[:n])
		}
		if end > 0 || br.eof {
			return br.emit(buf, n, end), nil
		}
		if err := br.tooLong(buf[:n]); err != nil {
			return nil, err
		}
		grown := make([]byte, 2*cap(buf))
		copy(grown, buf[:n])
		buf = grown[:cap(grown)]
	}
}

// tooLong reports a block that cannot grow: its last line is longer than
// MaxLine, or it has reached MaxBlock.
func (br *blockReader) tooLong(data []byte) error {
	start := bytes.LastIndexByte(data, '\n') + 1
	line := br.line + bytes.Count(data[:start], nl)
	switch {
	case len(data)-start > MaxLine:
		return list(&diag.Error{File: br.name, Line: line, Msg: fmt.Sprintf("line longer than %d bytes: not a TREC file (binary or compressed data?)", MaxLine)})
	case 2*len(data) > MaxBlock:
		return list(&diag.Error{File: br.name, Line: br.line, Msg: fmt.Sprintf("more than %d bytes without a place to cut (one query's lines, or comment lines, from here on)", MaxBlock/2)})
	}
	return nil
}

// buffer returns a recycled buffer of at least size bytes, or a new one.
func (br *blockReader) buffer(size int) []byte {
	select {
	case b := <-br.free:
		if cap(b) >= size {
			return b[:cap(b)]
		}
	default:
	}
	return make([]byte, size)
}

// fill reads until p is full or the input ends.
func (br *blockReader) fill(p []byte) (int, error) {
	n, err := io.ReadFull(br.r, p)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		br.eof = true
		err = nil
	}
	return n, err
}

// emit hands out buf[:end] and keeps buf[end:n] for the next block.
func (br *blockReader) emit(buf []byte, n, end int) *block {
	br.carry = append(br.carry[:0], buf[end:n]...)
	b := &block{buf: buf, data: buf[:end], line: br.line, seq: br.seq}
	br.line += bytes.Count(b.data, nl)
	br.seq++
	return b
}

// recycle makes a block's buffer available again, or drops it when enough
// are waiting.
func (br *blockReader) recycle(b *block) {
	select {
	case br.free <- b.buf:
	default:
	}
}

var nl = []byte{'\n'}

// lineCut ends a block after its last newline.
func lineCut(data []byte) int {
	return bytes.LastIndexByte(data, '\n') + 1
}

// queryCut ends a block before the last query that starts in it, so that no
// query of a grouped run is split between blocks; 0 if there is no such
// boundary yet.
func queryCut(data []byte) int {
	end := lineCut(data)
	if cut := lastQueryStart(data[:end]); cut > 0 {
		return cut
	}
	return queryCutWalk(data[:end])
}

// queryCutWalk is queryCut on whole lines, walking back a line at a time.
func queryCutWalk(data []byte) int {
	end := len(data)
	all := end
	var last []byte
	for end > 0 {
		start := bytes.LastIndexByte(data[:end-1], '\n') + 1
		key := lineKey(data[start:end])
		switch {
		case key == nil:
		case last == nil:
			last = key
		case !bytes.Equal(key, last):
			return end
		}
		end = start
	}
	if last == nil {
		return all // only blank lines and comments: any line end will do
	}
	return 0
}

// lastQueryStart is queryCut's quick path for the usual block, whose last
// query's lines all start with its id and a space or tab: it finds the first
// of them by probing lines backward from the end at doubling distances, then
// halving, checks that every line from there on has that id and that the
// line before has another, and returns where the first starts. It returns 0
// when the block is not of that shape, leaving the answer to queryCut's
// line-by-line walk, which it then equals.
func lastQueryStart(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	last := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	key := lineKey(data[last:])
	if last == 0 || len(key) == 0 || &key[0] != &data[last] {
		return 0
	}
	has := func(at int) bool { return bytes.HasPrefix(data[at:], key) && isSpace[data[at+len(key)]] }
	next := func(at int) int { return at + bytes.IndexByte(data[at:], '\n') + 1 } // the next line's start
	// a line without the id (a) before one with it (b), then lines between
	a, b := -1, last
	for step := 4096; a < 0; step *= 2 {
		if last-step <= 0 {
			if has(0) {
				return 0
			}
			a = 0
			break
		}
		if m := next(last - step); m < b {
			if has(m) {
				b = m
			} else {
				a = m
			}
		}
	}
	for b-a > 256 {
		m := next((a + b) / 2)
		if m >= b {
			break
		}
		if has(m) {
			b = m
		} else {
			a = m
		}
	}
	for m := next(a); m < b; m = next(m) {
		if has(m) {
			b = m
			break
		}
		a = m
	}
	// every line after b has the id, and a, just before it, another
	for at := b; at < last; {
		if at = next(at); !has(at) {
			return 0
		}
	}
	if k := lineKey(data[a:b]); next(a) != b || k == nil || bytes.Equal(k, key) {
		return 0
	}
	return b
}

// lineKey returns the first field of a line (its query id), or nil for a
// blank line or a comment.
func lineKey(line []byte) []byte {
	line = trimSpaceLeft(line)
	if len(line) == 0 || line[0] == '#' {
		return nil
	}
	i := 0
	for i < len(line) && !isSpace[line[i]] {
		i++
	}
	return line[:i]
}
