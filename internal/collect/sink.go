package collect

import (
	"bytes"
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
	// Append adds to an existing file (created when missing). A last line
	// cut short by a receiver killed in the middle of a write was never
	// acknowledged; it is removed first.
	Append
	// Replace starts a new file in the place of an existing one.
	Replace
)

// Sink is where the receiver writes: one OTLP/JSON line per request,
// flushed to stable storage before the request is acknowledged. It is safe
// for concurrent use.
type Sink struct {
	name string
	mu   sync.Mutex
	w    io.Writer
	f    *os.File // the file Create opened; nil for a stream
	size int64    // bytes of whole lines in f; a failed write is cut back to it
	sync bool     // flush after each line (false once the writer says it cannot)
	err  error    // set when a failed write could not be undone
	// Dropped is the number of bytes of an incomplete last line that
	// Create removed in Append mode.
	Dropped int64
}

// Create opens path for the receiver as mode says.
func Create(path string, mode Mode) (*Sink, error) {
	var f *os.File
	var err error
	s := &Sink{name: path, sync: true}
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
	return s, nil
}

// Stream writes to w, such as standard output, under the given name. Each
// line is flushed to stable storage when w is a file (it has a Sync
// method); a pipe or terminal cannot be synced, and there an
// acknowledgement means the line was written to it.
func Stream(w io.Writer, name string) *Sink {
	return &Sink{name: name, w: w, sync: true}
}

// Name is the file written.
func (s *Sink) Name() string { return s.name }

// cutPartialLine removes what follows the last newline of f and returns
// how many bytes it removed.
func cutPartialLine(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := st.Size()
	if end == 0 {
		return 0, nil
	}
	buf := make([]byte, 64<<10)
	for pos := end; pos > 0; {
		n := int64(len(buf))
		if pos < n {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return 0, fmt.Errorf("%s: %w", f.Name(), err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep := pos + int64(i) + 1
			if keep == end {
				return 0, nil
			}
			return end - keep, truncate(f, keep)
		}
	}
	return end, truncate(f, 0)
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

// Append writes line and a newline and flushes them to stable storage.
// When that fails, the file is cut back to its last whole line; when even
// that fails, every later Append fails too.
func (s *Sink) Append(line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	err := s.write(line)
	if err == nil {
		s.size += int64(len(line)) + 1
		return nil
	}
	if s.f == nil { // a stream: what was written stays written
		s.err = fmt.Errorf("%s: %w", s.name, err)
		return s.err
	}
	if terr := truncate(s.f, s.size); terr != nil {
		s.err = fmt.Errorf("%s: a failed write (%v) could not be undone: %v", s.name, err, terr)
		return s.err
	}
	return fmt.Errorf("%s: %w", s.name, err)
}

func (s *Sink) write(line []byte) error {
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	if _, err := s.w.Write(buf); err != nil {
		return err
	}
	f, ok := s.w.(interface{ Sync() error })
	if !s.sync || !ok {
		return nil
	}
	if err := f.Sync(); err != nil {
		if !unsyncable(err) {
			return err
		}
		s.sync = false
	}
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
