package input

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/ragstat/ragstat/internal/diag"
)

// Config bounds what a File copies and holds in memory, and says what a
// reader does with a last line that a writer left incomplete. The zero
// Config has every default.
type Config struct {
	// CopyLimit is the most bytes copied from standard input or a pipe
	// into a temporary file; 0: nine tenths of the free space of the
	// temporary directory when the copy starts (see DefaultCopyLimit).
	CopyLimit int64
	// MaxRead is the most decompressed bytes a whole-file read (ReadAll: a
	// JSON object, a gzip-compressed Parquet file, a text to count) holds
	// in memory; 0: DefaultMaxRead.
	MaxRead int64
	// MaxLine is the longest line of a JSON Lines record; 0: DefaultMaxLine.
	// A reader whose records are documents (a corpus, traces) may allow
	// more (its own floor), never less.
	MaxLine int
	// Strict makes a torn last line (see Torn) an error, not a warning.
	Strict bool
	// Warn receives warnings, one sentence each, naming the file. When it
	// is nil a torn last line is an error, since nothing would tell of it.
	Warn func(msg string)
}

// The defaults of Config.
const (
	DefaultMaxRead int64 = 256 << 20
	DefaultMaxLine       = 1 << 20
)

// configured is standard input with the Config of the files Open opens.
type configured struct {
	io.Reader
	cfg Config
}

// WithConfig returns stdin carrying cfg: every File that Open or Read
// opens with it as standard input follows cfg, standard input or not.
func WithConfig(stdin io.Reader, cfg Config) io.Reader {
	if c, ok := stdin.(*configured); ok {
		stdin = c.Reader
	}
	return &configured{stdin, cfg}
}

// ConfigOf is the Config that stdin carries (WithConfig), or the zero one.
func ConfigOf(stdin io.Reader) Config {
	if c, ok := stdin.(*configured); ok {
		return c.cfg
	}
	return Config{}
}

// unwrap is the reader under stdin's Config.
func unwrap(stdin io.Reader) io.Reader {
	if c, ok := stdin.(*configured); ok {
		return c.Reader
	}
	return stdin
}

// Config is the Config the file follows.
func (f *File) Config() Config { return f.cfg }

// MaxLine is the longest JSON Lines line the file's readers accept: the
// configured one, or floor when that is larger.
func (f *File) MaxLine(floor int) int {
	n := f.cfg.MaxLine
	if n <= 0 {
		n = DefaultMaxLine
	}
	return max(n, floor)
}

// maxRead is the most bytes ReadAll holds.
func (f *File) maxRead() int64 {
	if f.cfg.MaxRead > 0 {
		return f.cfg.MaxRead
	}
	return DefaultMaxRead
}

// tornMessage is the warning for a last line that ends the input without a
// newline and does not parse: a writer stopped mid-line (killed, or still
// writing). complete is the number of lines read before it.
func tornMessage(complete int) string {
	return fmt.Sprintf("last line incomplete: a writer stopped mid-line; %d complete lines imported", complete)
}

// Torn reports the last line of the file, line, as torn after complete
// good lines: a warning, and nil, so that the reader skips it; or, under
// Config.Strict or with no Config.Warn, an error naming the line.
func (f *File) Torn(line, complete int) error {
	msg := tornMessage(complete)
	if f.cfg.Strict || f.cfg.Warn == nil {
		return &diag.Error{File: f.Name, Line: line, Msg: msg, Hint: "without strict checking the line is skipped with a warning"}
	}
	f.cfg.Warn(fmt.Sprintf("%s:%d: %s", f.Name, line, msg))
	return nil
}

// copyLimit is the most bytes copyOf copies.
func (f *File) copyLimit() int64 {
	if f.cfg.CopyLimit > 0 {
		return f.cfg.CopyLimit
	}
	return defaultCopyLimit()
}

// defaultCopyLimit is nine tenths of the space free in the temporary
// directory (os.TempDir) now: a copy that reaches it stops with an error
// naming the limit instead of filling the disk. Where the free space
// cannot be learnt, it is 32 GiB.
func defaultCopyLimit() int64 {
	free, ok := freeSpace(os.TempDir())
	if !ok {
		return 32 << 30
	}
	return max(free/10*9, 1)
}

// ReaderAt gives random access to the decompressed content and its size,
// for formats read from the end (Parquet): the file itself when it is not
// compressed, else its content read whole (ReadAll, bounded by MaxRead).
// Close the closer when done.
func (f *File) ReaderAt() (io.ReaderAt, int64, io.Closer, error) {
	switch {
	case f.gzip:
	case f.data != nil:
		return bytes.NewReader(f.data), int64(len(f.data)), io.NopCloser(nil), nil
	case f.spool != nil:
		return f.spool, f.size, io.NopCloser(nil), nil
	default:
		file, err := os.Open(f.path)
		if err != nil {
			return nil, 0, nil, cleanOpenError(f.Name, err)
		}
		st, err := file.Stat()
		if err != nil {
			file.Close()
			return nil, 0, nil, &diag.Error{File: f.Name, Msg: err.Error()}
		}
		return file, st.Size(), file, nil
	}
	data, err := f.ReadAll()
	if err != nil {
		return nil, 0, nil, err
	}
	return bytes.NewReader(data), int64(len(data)), io.NopCloser(nil), nil
}
