package traceimport

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/gather"
)

// MaxRecord is the longest line read, in bytes: an OTLP request or a run
// larger than this is an error, not an unbounded allocation. A file read
// whole (a protobuf body, a JSON document) is bounded by the file's read
// limit (input.Config.MaxRead).
const MaxRecord = 256 << 20

// eachLine calls fn with every line of f and its number. A blank line, or
// one longer than MaxRecord, is an error; problems are gathered, and
// reading stops once diag.Max are. A last line without a newline that
// opens an object and is not valid JSON was torn by a writer that stopped
// mid-line: f.Torn says whether it is skipped with a warning or an error.
func eachLine(f *input.File, fn func(line int, data []byte) error) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	var errs diag.List
	var long gather.Pieces // a line past the buffer, held a buffer at a time
	for n := 1; ; n++ {
		data, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) || long.Len() > 0 {
			if long.Len()+len(data) > MaxRecord {
				errs.Add(&diag.Error{File: f.Name, Line: n, Msg: fmt.Sprintf("line longer than %d MiB", MaxRecord>>20)})
				return errs.Err()
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				data = long.Join(nil, data)
				break
			}
			long.Add(data)
			data, err = br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			errs.Add(fmt.Errorf("reading %s: %w", f.Name, err))
			break
		}
		if len(data) == 0 && err == io.EOF {
			break
		}
		data = bytes.TrimRight(data, "\r\n")
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			errs.Add(&diag.Error{File: f.Name, Line: n, Msg: "blank line", Hint: "JSON Lines holds one object on every line"})
		case err == io.EOF && n > 1 && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && !json.Valid(data):
			errs.Add(f.Torn(n, n-1)) // a writer stopped mid-line
		default:
			errs.Add(fn(n, data))
		}
		if errs.Full() || err == io.EOF {
			break
		}
	}
	return errs.Err()
}

// readAll reads a whole file (an OTLP protobuf body, a JSON document)
// through the file's bounded whole-file read (input.File.ReadAll).
func readAll(f *input.File) ([]byte, error) {
	data, err := f.ReadAll()
	var known *diag.Error
	if errors.As(err, &known) && known.Hint != "" {
		known.Hint += "; or write one record a line (JSON Lines)"
	}
	return data, err
}

// leading reads a file's first non-blank line as stored after
// decompression, up to limit bytes, after a newline when the file starts
// with one (a protobuf body may: its first byte is then kept), and its
// first non-blank byte. Blank lines before it are skipped as they are
// read, in one pass. A line longer than limit is cut: only its first
// buffer is returned, and cut is true.
func leading(f *input.File, limit int) (line []byte, first byte, cut bool, err error) {
	rc, err := f.Open()
	if err != nil {
		return nil, 0, false, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	var start []byte
	if head, _ := br.Peek(1); len(head) == 1 && head[0] == '\n' {
		start = []byte{'\n'}
	}
	if !skipBlank(br) {
		return start, 0, false, nil
	}
	head, _ := br.Peek(1)
	first = head[0]
	var long gather.Pieces
	long.Add(start)
	var opening []byte // the line's first buffer
	for {
		chunk, err := br.ReadSlice('\n')
		if opening == nil {
			opening = append(start, chunk...)
		}
		if long.Len()+len(chunk) > limit {
			return opening, first, true, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return long.Join(nil, chunk), first, false, nil
		}
		long.Add(chunk)
	}
}

// skipBlank reads past white space and byte-order marks, a buffer at a
// time, and reports whether anything else follows.
func skipBlank(br *bufio.Reader) bool {
	bom := []byte("\ufeff")
	for {
		if _, err := br.Peek(1); err != nil {
			return false
		}
		buf, _ := br.Peek(br.Buffered())
		i := 0
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n') {
			i++
		}
		br.Discard(i)
		if i == len(buf) {
			continue
		}
		if mark, _ := br.Peek(len(bom)); !bytes.Equal(mark, bom) {
			return true
		}
		br.Discard(len(bom))
	}
}

// wholeDocument reads a file as one JSON document when its first line alone
// is not valid JSON and the whole is; otherwise it returns nil, and the
// file is read line by line. A first line cut at MaxRecord (leading) is
// not read again whole where the read limit would refuse it: the line
// reader reports it.
func wholeDocument(f *input.File, firstLine []byte, cut bool) []byte {
	if cut && cmp.Or(f.Config().MaxRead, input.DefaultMaxRead) <= MaxRecord || json.Valid(bytes.TrimSpace(firstLine)) {
		return nil
	}
	data, err := readAll(f)
	if err != nil || !json.Valid(data) {
		return nil
	}
	return data
}

// decoded is what a worker made of one line.
type decoded[T any] struct {
	line int
	v    T
	err  error
}

// batch is a run of lines decoded together, and where its results go.
type batch[T any] struct {
	lines []int
	data  [][]byte
	out   chan []decoded[T]
}

// batchBytes is how much input a worker takes at once.
const batchBytes = 1 << 20

// parallelLines reads the lines of f as eachLine does, decodes them on
// workers goroutines (0: all cores), and hands the results to each in the
// order of the lines, so the outcome never depends on scheduling. At most
// a few batches per worker are in memory at once.
func parallelLines[T any](f *input.File, workers int, decode func(line int, data []byte) (T, error), each func(line int, v T) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *batch[T], workers)
	order := make(chan *batch[T], 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range jobs {
				out := make([]decoded[T], len(b.lines))
				for i, n := range b.lines {
					v, err := decode(n, b.data[i])
					out[i] = decoded[T]{n, v, err}
				}
				b.out <- out
			}
		})
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		cur, size := &batch[T]{}, 0
		send := func() bool {
			if len(cur.lines) == 0 {
				return true
			}
			cur.out = make(chan []decoded[T], 1)
			select {
			case order <- cur:
			case <-stop:
				return false
			}
			jobs <- cur
			cur, size = &batch[T]{}, 0
			return true
		}
		readErr = eachLine(f, func(n int, data []byte) error {
			cur.lines = append(cur.lines, n)
			cur.data = append(cur.data, bytes.Clone(data))
			if size += len(data); size >= batchBytes && !send() {
				return errStopped
			}
			return nil
		})
		send()
	}()
	var errs diag.List
	for b := range order {
		for _, d := range <-b.out {
			if errs.Full() {
				break
			}
			if d.err != nil {
				errs.Add(d.err)
			} else {
				errs.Add(each(d.line, d.v))
			}
		}
		if errs.Full() {
			select {
			case <-stop:
			default:
				close(stop)
			}
		}
	}
	wg.Wait()
	if readErr != errStopped {
		errs.Add(readErr)
	}
	return errs.Err()
}

var errStopped = errors.New("stopped")
