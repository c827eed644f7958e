package trecfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ragstat/ragstat/diag"
)

// blockSize is how much input one parser receives at a time.
var blockSize = 4 << 20

// MaxLine is the longest line a reader accepts: no TREC line comes near it,
// and a file without newlines (binary data, a decompression bomb) is refused
// once this much of it is read instead of being held whole.
const MaxLine = 1 << 20

// MaxBlock is the most a reader holds at once: all of one query's lines of a
// grouped run, or a stretch of qrels comment lines, must fit.
const MaxBlock = 1 << 30

// buffers recycles block buffers across readers.
var buffers sync.Pool

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
	carry []byte // bytes read but not yet handed out
	line  int
	seq   int
	eof   bool
}

func newBlockReader(name string, r io.Reader, cut func([]byte) int) *blockReader {
	return &blockReader{name: name, r: r, cut: cut, line: 1}
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
	if b, ok := buffers.Get().(*[]byte); ok && cap(*b) >= size {
		return (*b)[:cap(*b)]
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

// recycle makes a block's buffer available again.
func recycle(b *block) {
	buffers.Put(&b.buf)
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
