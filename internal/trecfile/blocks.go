package trecfile

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// blockSize is how much input one parser receives at a time.
var blockSize = 4 << 20

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
	r     io.Reader
	cut   func(data []byte) int
	carry []byte // bytes read but not yet handed out
	line  int
	seq   int
	eof   bool
}

func newBlockReader(r io.Reader, cut func([]byte) int) *blockReader {
	return &blockReader{r: r, cut: cut, line: 1}
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
		grown := make([]byte, 2*cap(buf))
		copy(grown, buf[:n])
		buf = grown[:cap(grown)]
	}
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
