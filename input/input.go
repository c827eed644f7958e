// Package input opens the files ragstat reads: plain or gzip-compressed
// (recognised by content, not by name), standard input as "-", or any
// io.Reader (FromReader) or bytes (FromBytes) of a Go program. A File can
// be opened more than once, which lets a streaming reader start over, and it
// can say what its first bytes look like so formats are detected by content.
package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/gather"
	"github.com/ragstat/ragstat/internal/sniff"
)

// File is one input as the user named it.
type File struct {
	Name  string   // display name: the path as given, or "-"
	path  string   // where the bytes are on disk
	data  []byte   // content held in memory, for FromBytes
	spool *os.File // the copy of standard input or a pipe, already unlinked
	size  int64    // the copy's size
	gzip  bool
	seen  func(n int)
	cfg   Config // bounds and warnings, from Open's standard input
	// keepSum has every whole read of the raw bytes hash them on the way.
	keepSum bool
	sums    sync.WaitGroup // the whole reads whose digest is being computed
	mu      sync.Mutex
	sum     string // the SHA-256 of the last whole read, once there was one
}

// Watch has seen called with the number of raw bytes of every read, for
// a progress bar.
func (f *File) Watch(seen func(n int)) { f.seen = seen }

// Size is the number of bytes as stored (compressed, for gzip).
func (f *File) Size() int64 {
	switch {
	case f.data != nil:
		return int64(len(f.data))
	case f.spool != nil:
		return f.size
	}
	if st, err := os.Stat(f.path); err == nil {
		return st.Size()
	}
	return 0
}

// counted reports every read to seen.
type counted struct {
	io.ReadCloser
	seen func(n int)
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.seen(n)
	return n, err
}

// Stdin is the name that stands for standard input.
const Stdin = "-"

// Open checks that path can be read and is not empty, and recognises gzip.
// For "-", standard input is copied to a temporary file first, so it can be
// read again, and so is a named pipe (such as a shell's <(command)), up to
// the Config's CopyLimit bytes; Close removes the copy. A device
// (/dev/zero, a terminal) is refused, also as standard input. The File
// follows the Config stdin carries (WithConfig).
func Open(path string, stdin io.Reader) (*File, error) {
	f := &File{Name: path, path: path, cfg: ConfigOf(stdin)}
	if path == Stdin {
		in := unwrap(stdin)
		under := in
		if o, ok := in.(*onceReader); ok {
			if o.read {
				return nil, &diag.Error{File: path, Msg: "standard input can be read once, and an earlier input took it",
					Hint: "give all inputs but one as files"}
			}
			under = o.r
		}
		if file, ok := under.(*os.File); ok {
			if st, err := file.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				return nil, &diag.Error{File: path, Msg: "standard input is a device (" + file.Name() + "), not a file",
					Hint: "redirect a file to standard input, or give its path"}
			}
		}
		if err := f.copyOf(in); err != nil {
			return nil, err
		}
	} else if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &diag.Error{File: path, Msg: "is a directory, not a file", Hint: "name a file in it"}
	} else if err == nil && !st.Mode().IsRegular() {
		if st.Mode()&os.ModeCharDevice != 0 {
			return nil, &diag.Error{File: path, Msg: "a device, not a file", Hint: "give a file, or - for standard input"}
		}
		pipe, err := os.Open(path)
		if err != nil {
			return nil, cleanOpenError(path, err)
		}
		err = f.copyOf(pipe)
		pipe.Close()
		if err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(path) == "" {
		return nil, &diag.Error{Msg: "empty file name"}
	}
	return f.checked()
}

// Once wraps standard input so that Open refuses "-" once anything has
// read from it: a second "-" is then an error that says so, not an empty
// file.
func Once(stdin io.Reader) io.Reader {
	if _, ok := stdin.(*onceReader); ok || stdin == nil {
		return stdin
	}
	return &onceReader{r: stdin}
}

type onceReader struct {
	r    io.Reader
	read bool
}

func (o *onceReader) Read(p []byte) (int, error) {
	o.read = true
	return o.r.Read(p)
}

// FromReader makes a File of everything r yields, copied to a temporary
// file that vanishes with the process (Close removes it at once): a reader
// from a Go program, read like a file named name, which labels messages.
func FromReader(name string, r io.Reader) (*File, error) {
	f := &File{Name: name, path: name}
	if err := f.copyOf(r); err != nil {
		f.Close()
		return nil, err
	}
	out, err := f.checked()
	if err != nil {
		f.Close()
	}
	return out, err
}

// checked refuses an empty file and recognises gzip.
func (f *File) checked() (*File, error) {
	head, err := f.rawHead(2)
	if err != nil {
		return nil, err
	}
	if len(head) == 0 {
		return nil, &diag.Error{File: f.Name, Msg: "file is empty", Hint: "give a file with at least one line"}
	}
	f.gzip = len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b
	if f.gzip {
		if _, err := f.Head(1); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// copyOf copies what can be read only once into a temporary file that is
// unlinked at once: it can be read again, and it vanishes with the process
// even if Close is never called.
func (f *File) copyOf(r io.Reader) error {
	tmp, err := os.CreateTemp("", "ragstat-stdin-*")
	if err != nil {
		return err
	}
	os.Remove(tmp.Name())
	f.spool = tmp
	limit := f.copyLimit()
	if f.size, err = io.Copy(tmp, io.LimitReader(r, limit+1)); err != nil {
		return &diag.Error{File: f.Name, Msg: "copying to a temporary file: " + err.Error()}
	}
	if f.size > limit {
		tmp.Close()
		f.spool = nil
		return &diag.Error{File: f.Name, Msg: fmt.Sprintf("more than %s: standard input and pipes are copied to a temporary file, and this one has reached the copy limit (an endless stream, or more than the temporary directory holds?)", diag.Size(limit)),
			Hint: "give a regular file, or raise the copy limit"}
	}
	return nil
}

// Close releases the copy of standard input or a pipe; it is a no-op
// otherwise, and on a nil File.
func (f *File) Close() error {
	if f != nil && f.spool != nil {
		return f.spool.Close()
	}
	return nil
}

// raw opens the bytes as stored, compressed or not.
func (f *File) raw() (io.ReadCloser, error) {
	var r io.ReadCloser
	switch {
	case f.data != nil:
		r = io.NopCloser(bytes.NewReader(f.data))
	case f.spool != nil:
		r = io.NopCloser(io.NewSectionReader(f.spool, 0, f.size))
	default:
		file, err := os.Open(f.path)
		if err != nil {
			return nil, cleanOpenError(f.Name, err)
		}
		r = file
	}
	if f.seen != nil {
		r = counted{r, f.seen}
	}
	if f.keepSum {
		r = newHashing(r, f)
	}
	return r, nil
}

// hashing hashes what it reads on a goroutine of its own, so that the
// digest costs the reader a copy of the bytes and runs beside whatever it
// does with them; at the end of the bytes the digest is left with the file.
type hashing struct {
	io.ReadCloser
	f        *File
	work     chan []byte // copies of the bytes read, in order
	free     chan []byte // buffers for the copies
	ended    bool        // work is closed
	complete bool        // every byte was read: the digest is the file's
}

// Copies of the bytes read are handed to the hashing goroutine in chunks of
// hashChunk bytes, at most hashAhead of them waiting.
const (
	hashChunk = 256 << 10
	hashAhead = 8
)

func newHashing(r io.ReadCloser, f *File) *hashing {
	h := &hashing{ReadCloser: r, f: f, work: make(chan []byte, hashAhead), free: make(chan []byte, hashAhead)}
	for range hashAhead {
		h.free <- make([]byte, 0, hashChunk)
	}
	go func() {
		sum := sha256.New()
		for b := range h.work {
			sum.Write(b)
			h.free <- b
		}
		if h.complete {
			f.mu.Lock()
			f.sum = hex.EncodeToString(sum.Sum(nil))
			f.mu.Unlock()
			f.sums.Done()
		}
	}()
	return h
}

func (h *hashing) Read(p []byte) (int, error) {
	n, err := h.ReadCloser.Read(p)
	for b := p[:n]; len(b) > 0; {
		c := append((<-h.free)[:0], b[:min(len(b), hashChunk)]...)
		h.work <- c
		b = b[len(c):]
	}
	if err == io.EOF && !h.ended {
		h.complete, h.ended = true, true
		h.f.sums.Add(1)
		close(h.work)
	}
	return n, err
}

func (h *hashing) Close() error {
	if !h.ended {
		h.ended = true
		close(h.work)
	}
	return h.ReadCloser.Close()
}

func (f *File) rawHead(n int) ([]byte, error) { return prefix(f.Name, f.raw, n) }

// prefix reads up to n bytes from the start of what open returns.
func prefix(name string, open func() (io.ReadCloser, error), n int) ([]byte, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(r, buf)
	var known *diag.Error
	switch {
	case err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return buf[:m], nil
	case errors.As(err, &known):
		return nil, err
	}
	return nil, &diag.Error{File: name, Msg: err.Error()}
}

func cleanOpenError(name string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &diag.Error{File: name, Msg: "no such file"}
	case errors.Is(err, os.ErrPermission):
		return &diag.Error{File: name, Msg: "permission denied"}
	}
	return &diag.Error{File: name, Msg: err.Error()}
}

// Gzip reports whether the file is gzip-compressed.
func (f *File) Gzip() bool { return f.gzip }

// Base is the file name without directories and without the .gz and format
// extensions, the default name of a run.
func (f *File) Base() string {
	if f.Name == Stdin {
		return "stdin"
	}
	b := filepath.Base(f.Name)
	b = strings.TrimSuffix(b, ".gz")
	if ext := filepath.Ext(b); ext != "" && len(b) > len(ext) {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// Open returns the decompressed content from the start, less a UTF-8
// byte-order mark at its very start (editors on Windows write one).
func (f *File) Open() (io.ReadCloser, error) {
	r, err := f.raw()
	if err != nil {
		return nil, err
	}
	if f.gzip {
		z, err := gzip.NewReader(bufio.NewReaderSize(r, 1<<20))
		if err != nil {
			r.Close()
			return nil, &diag.Error{File: f.Name, Msg: "invalid gzip data: " + err.Error()}
		}
		r = &gzipFile{Reader: z, name: f.Name, file: r}
	}
	return skipBOM(r)
}

var bom = []byte{0xef, 0xbb, 0xbf}

// skipBOM drops a byte-order mark at the start of r.
func skipBOM(r io.ReadCloser) (io.ReadCloser, error) {
	head := make([]byte, len(bom))
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		r.Close()
		return nil, err
	}
	if bytes.Equal(head[:n], bom) {
		return r, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head[:n]), r), r}, nil
}

type gzipFile struct {
	*gzip.Reader
	name string
	file io.Closer
}

func (g *gzipFile) Read(p []byte) (int, error) {
	n, err := g.Reader.Read(p)
	if err != nil && err != io.EOF {
		err = &diag.Error{File: g.name, Msg: "invalid gzip data: " + err.Error()}
	}
	return n, err
}

func (g *gzipFile) Close() error {
	g.Reader.Close()
	return g.file.Close()
}

// Head returns up to n decompressed bytes from the start, for detecting the
// format. A compressed file that decompresses to nothing is an error.
func (f *File) Head(n int) ([]byte, error) {
	head, err := prefix(f.Name, f.Open, n)
	if err == nil && len(head) == 0 {
		err = &diag.Error{File: f.Name, Msg: "file is empty after decompression"}
	}
	return head, err
}

// KeepSHA256 has a read of the whole file, to its end, compute the
// file's SHA-256 on the way, so that SHA256 after such a read costs no
// second pass over the bytes. Call it before reading.
func (f *File) KeepSHA256() { f.keepSum = true }

// SHA256 is the hex digest of the bytes on disk (compressed, as given).
func (f *File) SHA256() (string, error) {
	f.sums.Wait()
	f.mu.Lock()
	sum := f.sum
	f.mu.Unlock()
	if sum != "" {
		return sum, nil
	}
	f.keepSum = true
	r, err := f.raw()
	if err != nil {
		return "", err
	}
	_, err = io.Copy(io.Discard, r)
	r.Close()
	if err != nil {
		return "", &diag.Error{File: f.Name, Msg: err.Error()}
	}
	f.sums.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sum, nil
}

// FromBytes makes a File of data held in memory (an embedded example, a
// test fixture); it behaves like a file on disk named name.
func FromBytes(name string, data []byte) *File {
	return &File{Name: name, data: data, gzip: len(data) > 1 && data[0] == 0x1f && data[1] == 0x8b}
}

// ReadAll returns the whole decompressed content, when it is at most the
// Config's MaxRead bytes; past that it stops with an error naming the
// limit, having held no more than it. The content is read a chunk at a
// time and joined at the end (gather.Pieces), so a file within the limit holds
// twice its size for the join, and no more.
func (f *File) ReadAll() ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	limit := f.maxRead()
	var g gather.Pieces
	buf := make([]byte, 1<<20)
	for int64(g.Len()) <= limit {
		n, err := io.ReadFull(r, buf[:min(int64(len(buf)), limit+1-int64(g.Len()))])
		g.Add(buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(g.Len()) > limit {
		what := ""
		if f.gzip {
			what = " once decompressed"
		}
		return nil, &diag.Error{File: f.Name, Msg: fmt.Sprintf("more than %s%s: a file read whole is held in memory, up to the read limit", diag.Size(limit), what),
			Hint: "raise {max_read} if the file is what it should be"}
	}
	return g.Join(nil, nil), nil
}

// Format is the format of a judgments or run file.
type Format string

// The formats of judgments and runs.
const (
	FormatAuto  Format = ""      // detect from the content
	FormatTREC  Format = "trec"  // whitespace-separated columns
	FormatJSONL Format = "jsonl" // one JSON object a line
	FormatJSON  Format = "json"  // one JSON object of objects
)

// ParseFormat reads a format's name: auto, trec, jsonl or json.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case FormatAuto, "auto":
		return FormatAuto, nil
	case FormatTREC, FormatJSONL, FormatJSON:
		return f, nil
	}
	return FormatAuto, fmt.Errorf("unknown format %q: use trec, jsonl or json", s)
}

// DetectFormat guesses the format of a judgments or run file from its
// first bytes: TREC when the first line is not a JSON object, JSON Lines
// when it is one and line accepts its keys as those of a line's record,
// else the JSON object format. A first line longer than head is judged by
// the keys head holds, the last value cut where head ends.
func DetectFormat(head []byte, line func(keys map[string]json.RawMessage) bool) Format {
	first := sniff.FirstLine(head)
	if len(first) == 0 || first[0] != '{' {
		return FormatTREC
	}
	if line(sniff.FirstKeys(first)) {
		return FormatJSONL
	}
	return FormatJSON
}
