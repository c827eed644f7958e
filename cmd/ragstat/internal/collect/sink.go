package collect

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Mode says what Create does with a file that already exists.
type Mode int

const (
	// New refuses an existing file.
	New Mode = iota
	// Append adds to an existing file (created when missing) that holds
	// what a receiver wrote: lines that start as Server's do (LinePrefix).
	// A last line cut short by a receiver killed in the middle of a write
	// was never acknowledged; it is removed first. Any other file is
	// refused, untouched.
	Append
	// Replace starts a new file in the place of an existing one.
	Replace
)

// ModeOf is the mode two switches choose: Append when appending, else
// Replace when replacing, else New.
func ModeOf(appending, replacing bool) Mode {
	switch {
	case appending:
		return Append
	case replacing:
		return Replace
	}
	return New
}

// Sink is where the receiver writes: one OTLP/JSON line per request,
// flushed to stable storage before the request is acknowledged. It is safe
// for concurrent use; requests that arrive together share one flush.
type Sink struct {
	name string
	mu   sync.Mutex // guards the writes: w, size, err
	w    io.Writer
	f    *os.File // the file Create opened; nil for a stream
	size int64    // bytes of whole lines written; a failed write is cut back to it
	err  error    // set once the sink cannot go on

	flushMu sync.Mutex // one flush at a time; guards synced and noSync
	synced  int64      // bytes known to be on stable storage
	noSync  bool       // the writer cannot be flushed (a pipe, a terminal)

	// Dropped is the number of bytes of an incomplete last line that
	// Create removed in Append mode.
	Dropped int64
}

// Create opens path for the receiver as mode says.
func Create(path string, mode Mode) (*Sink, error) {
	var f *os.File
	var err error
	s := &Sink{name: path}
	switch mode {
	case New:
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s exists: --append adds to it, --force replaces it", path)
		}
	case Append:
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err == nil {
			s.Dropped, err = cutPartialLine(f)
		}
		if err != nil && f != nil {
			err = fmt.Errorf("%s: not appending (the file is left as it is; --force replaces it): %w", path, err)
		}
	case Replace:
		f, err = replace(path)
	default:
		return nil, fmt.Errorf("collect: unknown mode %d", mode)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, err
	}
	if err := syncDir(path); err != nil {
		f.Close()
		return nil, err
	}
	s.f, s.w = f, f
	if s.size, err = f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	s.synced = s.size
	return s, nil
}

// Stream writes to w, such as standard output, under the given name. Each
// line is flushed to stable storage when w is a file (it has a Sync
// method); a pipe or terminal cannot be synced, and there an
// acknowledgement means the line was written to it.
func Stream(w io.Writer, name string) *Sink {
	return &Sink{name: name, w: w}
}

// Name is the file written.
func (s *Sink) Name() string { return s.name }

// LinePrefix is how every line a Server writes starts: OTLP/JSON of
// traces, as pdata writes it.
const LinePrefix = `{"resourceSpans":[`

// cutPartialLine checks that f holds lines a receiver wrote (its first
// line, its last whole line and what follows it start with LinePrefix),
// then removes what follows the last newline and returns how many bytes
// it removed: a line a receiver killed in the middle of a write left
// unfinished. A file that does not look so is refused, untouched.
func cutPartialLine(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := st.Size()
	if !st.Mode().IsRegular() {
		return 0, errors.New("not a regular file")
	}
	if end == 0 {
		return 0, nil
	}
	head := make([]byte, min(end, int64(len(LinePrefix))))
	if _, err := f.ReadAt(head, 0); err != nil {
		return 0, err
	}
	if !startsLine(head) {
		return 0, fmt.Errorf("it does not start as the lines ragstat collect writes (%s...)", LinePrefix)
	}
	// Find the last newline and the one before it.
	last, prev := int64(-1), int64(-1)
	buf := make([]byte, 64<<10)
	for pos := end; pos > 0 && prev < 0; {
		n := min(int64(len(buf)), pos)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return 0, err
		}
		for i := n - 1; i >= 0 && prev < 0; i-- {
			if buf[i] != '\n' {
				continue
			}
			if last < 0 {
				last = pos + i
			} else {
				prev = pos + i
			}
		}
	}
	if last >= 0 {
		if err := checkLineAt(f, prev+1, end); err != nil {
			return 0, fmt.Errorf("its last whole line %w", err)
		}
	}
	keep := last + 1
	if keep < end {
		if err := checkLineAt(f, keep, end); err != nil {
			return 0, fmt.Errorf("what follows its last newline %w, so it is not a line a killed receiver left unfinished", err)
		}
	}
	if keep == end {
		return 0, nil
	}
	return end - keep, truncate(f, keep)
}

// checkLineAt checks that the line at off in f (up to end) starts as a
// receiver's lines do.
func checkLineAt(f *os.File, off, end int64) error {
	b := make([]byte, min(end-off, int64(len(LinePrefix))))
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	if !startsLine(b) {
		return fmt.Errorf("does not start as the lines ragstat collect writes (%s...)", LinePrefix)
	}
	return nil
}

// startsLine reports whether b is the start of a line a receiver writes
// (or of LinePrefix, for a line cut short within it).
func startsLine(b []byte) bool {
	n := min(len(b), len(LinePrefix))
	return string(b[:n]) == LinePrefix[:n]
}

func truncate(f *os.File, size int64) error {
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// replace makes an empty file beside path and renames it over path, so the
// old file is replaced whole or not at all.
func replace(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// syncDir flushes the directory holding path, so a new file's name is on
// disk too.
func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !unsyncable(err) {
		return fmt.Errorf("%s: %w", filepath.Dir(path), err)
	}
	return nil
}

// unsyncable reports whether err says the file cannot be synced at all (a
// pipe, a terminal, some special file systems).
func unsyncable(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EBADF)
}

// Append writes the lines, each with a newline, in one write and flushes
// them to stable storage, together with whatever other lines were written
// meanwhile. When the
// write fails, the file is cut back to its last whole line; when even that
// fails, or a flush fails (what was written since the last flush may then
// be lost), every later Append fails too.
func (s *Sink) Append(lines ...[]byte) error {
	end, err := s.write(lines)
	if err != nil {
		return err
	}
	return s.flush(end)
}

// write writes lines and returns the offset of their end.
func (s *Sink) write(lines [][]byte) (int64, error) {
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	buf := make([]byte, 0, size)
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if _, err := s.w.Write(buf); err != nil {
		if s.f == nil { // a stream: what was written stays written
			s.err = fmt.Errorf("%s: %w", s.name, err)
			return 0, s.err
		}
		if terr := truncate(s.f, s.size); terr != nil {
			s.err = fmt.Errorf("%s: a failed write (%v) could not be undone: %v", s.name, err, terr)
			return 0, s.err
		}
		if _, serr := s.f.Seek(s.size, io.SeekStart); serr != nil {
			s.err = fmt.Errorf("%s: %w", s.name, serr)
			return 0, s.err
		}
		return 0, fmt.Errorf("%s: %w", s.name, err)
	}
	s.size += int64(len(buf))
	return s.size, nil
}

// flush makes sure the bytes up to end are on stable storage: one flush
// covers every line written before it starts.
func (s *Sink) flush(end int64) error {
	f, ok := s.w.(interface{ Sync() error })
	if !ok {
		return nil
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if s.noSync || s.synced >= end {
		return nil
	}
	s.mu.Lock()
	target, broken := s.size, s.err
	s.mu.Unlock()
	if broken != nil {
		return broken
	}
	if err := f.Sync(); err != nil {
		if unsyncable(err) {
			s.noSync = true
			return nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.err = fmt.Errorf("%s: flushing to disk: %w (what was written since the last flush may be lost)", s.name, err)
		return s.err
	}
	s.synced = target
	return nil
}

// Close closes the file Create opened; a stream is left open.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}
