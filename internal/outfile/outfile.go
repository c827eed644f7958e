// Package outfile writes the files a command produces so that nothing a user
// has is lost or left half-written. Every output of a command is claimed
// before the work starts: an output that is the same file as one of the
// command's inputs (same device and inode, symbolic links followed) is
// refused, naming both; an existing file is replaced only when forced; two
// outputs may not be one file. Each output is then written to a temporary
// file in its own folder, created with mode 0644 less the umask, and renamed
// over the destination only when Commit is called, once the command has
// succeeded. Abort removes every temporary file (and every folder the Set
// created), so a command that fails leaves no output behind.
//
// A temporary file is named .NAME.PID-RANDOM.tmp after its destination
// NAME and the process writing it. RemoveTemporary removes those of the
// process, what it does before it ends on a signal; a temporary file whose
// process is gone (killed with SIGKILL, say) is removed by the next Write
// of the same destination.
//
// The output "-" is standard output and is written directly. An existing
// output that is not a regular file (a terminal, /dev/null, a named pipe) is
// written directly too: there is no file to replace.
package outfile

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/ragstat/ragstat/internal/diag"
)

// Stdout is the output name that stands for standard output.
const Stdout = "-"

// Input is one file the command reads, as the user named it.
type Input struct {
	Flag string // how the user gave it: "--judgments", "run", ...
	Path string
}

// Options says how a Set treats existing files.
type Options struct {
	Force  bool      // replace existing files
	Stdout io.Writer // where "-" goes
}

// Set is the outputs of one command run. It is not safe for concurrent use.
type Set struct {
	opt     Options
	inputs  []input
	outputs []*output
	dirs    []string // folders created, deepest last
	done    bool
}

type input struct {
	Input
	info os.FileInfo
}

type output struct {
	flag, path string
	resolved   string      // absolute, with the folder's links resolved
	info       os.FileInfo // the existing file, or nil
	direct     bool        // written in place: "-" or not a regular file
	tmp        string      // the temporary file, once written
}

// New starts a Set for a command reading inputs. An input named "-"
// (standard input) or that cannot be found is skipped: it cannot be one of
// the outputs, and its reader reports a missing file.
func New(opt Options, inputs ...Input) *Set {
	s := &Set{opt: opt}
	for _, in := range inputs {
		if in.Path == "" || in.Path == Stdout {
			continue
		}
		if info, err := os.Stat(in.Path); err == nil {
			s.inputs = append(s.inputs, input{in, info})
		}
	}
	return s
}

// Claim checks that path may be written as the output given by flag: it is
// not one of the inputs, not another output, not a folder, and, unless
// forced, not an existing file. Its folder must exist (see Dir).
func (s *Set) Claim(flag, path string) error {
	if path == Stdout {
		s.outputs = append(s.outputs, &output{flag: flag, path: path, direct: true})
		return nil
	}
	if path == "" {
		return &diag.Error{Msg: flag + " is empty: name a file"}
	}
	o := &output{flag: flag, path: path}
	info, err := os.Stat(path)
	switch {
	case err == nil:
		o.info = info
	case !errors.Is(err, os.ErrNotExist):
		return &diag.Error{File: path, Msg: err.Error()}
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return &diag.Error{File: path, Msg: fmt.Sprintf("the folder %s does not exist: create it first", filepath.Dir(path))}
	}
	if o.resolved, err = filepath.Abs(filepath.Join(dir, filepath.Base(path))); err != nil {
		return &diag.Error{File: path, Msg: err.Error()}
	}
	if o.info != nil {
		for _, in := range s.inputs {
			if os.SameFile(o.info, in.info) {
				return &diag.Error{Msg: fmt.Sprintf("%s %s is the same file as the input %s %s: it would be overwritten", flag, path, in.Flag, in.Path),
					Hint: "write the output to another file"}
			}
		}
	}
	for _, other := range s.outputs {
		if other.direct && other.path == Stdout {
			continue
		}
		if other.resolved == o.resolved || o.info != nil && other.info != nil && os.SameFile(o.info, other.info) {
			return &diag.Error{Msg: fmt.Sprintf("%s %s and %s %s are the same file", other.flag, other.path, flag, path),
				Hint: "give each output its own file"}
		}
	}
	switch {
	case o.info == nil:
	case o.info.IsDir():
		return &diag.Error{File: path, Msg: flag + " names a folder: name a file"}
	case !o.info.Mode().IsRegular():
		o.direct = true // a device or a pipe: nothing to replace
	case !s.opt.Force:
		return &diag.Error{File: path, Msg: "the file exists", Hint: "pass {force} to replace it, or name another file"}
	}
	s.outputs = append(s.outputs, o)
	return nil
}

// Dir makes sure the folder path exists, creating it (and its parents) when
// missing; Abort removes the folders it created if they are still empty.
func (s *Set) Dir(path string) error {
	var missing []string
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err == nil {
			if !info.IsDir() {
				return &diag.Error{File: p, Msg: "not a folder"}
			}
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	slices.Reverse(missing)
	for _, p := range missing {
		if err := os.Mkdir(p, 0o777); err != nil && !errors.Is(err, os.ErrExist) {
			return &diag.Error{File: p, Msg: err.Error()}
		}
		s.dirs = append(s.dirs, p)
	}
	return nil
}

// Write fills the claimed output path with what write writes: into a
// temporary file beside it, renamed over path by Commit.
func (s *Set) Write(path string, write func(io.Writer) error) error {
	i := slices.IndexFunc(s.outputs, func(o *output) bool { return o.path == path && o.tmp == "" })
	if i < 0 {
		return fmt.Errorf("outfile: %s was not claimed", path)
	}
	o := s.outputs[i]
	if o.path == Stdout {
		return write(s.opt.Stdout)
	}
	var f *os.File
	var err error
	if o.direct {
		f, err = os.OpenFile(o.path, os.O_WRONLY|os.O_TRUNC, 0)
	} else {
		removeStale(filepath.Dir(o.path), filepath.Base(o.path))
		f, err = createTemp(filepath.Dir(o.path), filepath.Base(o.path))
	}
	if err != nil {
		return &WriteError{Path: o.path, Err: err}
	}
	if !o.direct {
		o.tmp = f.Name()
	}
	fw := &Checked{W: f}
	bw := bufio.NewWriterSize(fw, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	cerr := f.Close()
	switch {
	case fw.Err != nil: // whatever write made of it
		return &WriteError{Path: o.path, Err: fw.Err}
	case err == nil && cerr != nil:
		return &WriteError{Path: o.path, Err: cerr}
	}
	return err
}

// A WriteError is a failure to write an output file (a full disk, a
// device that refuses it, a folder that cannot be written): a fault of the
// output, not of the input, which callers may tell apart by its type.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *WriteError) Unwrap() error { return e.Err }

// Checked is a writer that keeps the first error of W (a short write is
// one) in Err, and fails every write after it: an output whose every
// write is checked once, at the end.
type Checked struct {
	W   io.Writer
	Err error
}

func (c *Checked) Write(p []byte) (int, error) {
	if c.Err != nil {
		return 0, c.Err
	}
	n, err := c.W.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.Err = err
	return n, err
}

// temps is the temporary files of this process not yet renamed or
// removed; once closed (RemoveTemporary), no more are created.
var temps struct {
	mu     sync.Mutex
	names  map[string]bool
	closed bool
}

// createTemp creates a new file in dir named after base, with mode 0644 less
// the umask (os.CreateTemp would give 0600), and records it in temps.
func createTemp(dir, base string) (*os.File, error) {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	if temps.closed {
		return nil, errors.New("the process is ending: no more files are written")
	}
	for range 100 {
		name := filepath.Join(dir, "."+base+"."+strconv.Itoa(os.Getpid())+"-"+rand.Text()[:10]+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err == nil {
			if temps.names == nil {
				temps.names = make(map[string]bool)
			}
			temps.names[name] = true
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}

// settle renames (to != "") or removes the temporary file tmp and forgets
// it.
func settle(tmp, to string) error {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	delete(temps.names, tmp)
	if to == "" {
		return os.Remove(tmp)
	}
	return os.Rename(tmp, to)
}

// RemoveTemporary removes every temporary file this process's Sets have
// written and not committed or aborted, and makes later Writes fail: what
// a process does before it ends on a signal.
func RemoveTemporary() {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	for name := range temps.names {
		os.Remove(name)
	}
	temps.names, temps.closed = nil, true
}

// removeStale removes the temporary files of base in dir that a process
// which has ended left behind (killed before it could remove them). A
// file whose process may still run, or whose name has no process id, is
// left.
func removeStale(dir, base string) {
	prefix := "." + base + "."
	matches, _ := filepath.Glob(filepath.Join(dir, globEscape(prefix)+"*.tmp"))
	for _, m := range matches {
		pid, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(m), prefix), "-")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(pid); err == nil && n > 0 && n != os.Getpid() && ended(n) {
			os.Remove(m)
		}
	}
}

// ended reports whether the process pid is known to have ended.
func ended(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	err = p.Signal(syscall.Signal(0))
	return errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH)
}

// globEscape quotes the characters filepath.Match reads specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Commit renames every written output into place. An output that was
// claimed but not written is left as it was.
func (s *Set) Commit() error {
	for _, o := range s.outputs {
		if o.tmp == "" {
			continue
		}
		if err := settle(o.tmp, o.path); err != nil {
			s.Abort()
			return &WriteError{Path: o.path, Err: err}
		}
		o.tmp = ""
	}
	s.done = true
	return nil
}

// Finish writes the last output, path, as Write does, and commits the
// Set: the end of a command with one output.
func (s *Set) Finish(path string, write func(io.Writer) error) error {
	if err := s.Write(path, write); err != nil {
		return err
	}
	return s.Commit()
}

// Abort removes what the Set wrote and the folders it created, unless
// Commit succeeded; it may be deferred unconditionally.
func (s *Set) Abort() {
	if s.done {
		return
	}
	for _, o := range s.outputs {
		if o.tmp != "" {
			settle(o.tmp, "")
			o.tmp = ""
		}
	}
	for i := len(s.dirs) - 1; i >= 0; i-- {
		os.Remove(s.dirs[i]) // only if empty
	}
	s.dirs = nil
}

// Inputs names paths given under one flag (each run or trace file of a
// command's arguments, say) as inputs.
func Inputs(flag string, paths ...string) []Input {
	ins := make([]Input, len(paths))
	for i, p := range paths {
		ins[i] = Input{Flag: flag, Path: p}
	}
	return ins
}

// Start is New followed by a Claim of every output that has a path (an
// optional output not given is skipped): what a command does before it
// reads anything. On an error nothing stays claimed.
func Start(opt Options, inputs []Input, outputs ...Input) (*Set, error) {
	s := New(opt, inputs...)
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := s.Claim(o.Flag, o.Path); err != nil {
			s.Abort()
			return nil, err
		}
	}
	return s, nil
}

// ReportTo is where a command's report on its output goes: stdout, unless
// the output is written there (out is Stdout).
func ReportTo(out string, stdout, stderr io.Writer) io.Writer {
	if out == Stdout {
		return stderr
	}
	return stdout
}

// A ReportError is a failure to write a command's report on what it did
// (a summary on standard output, say): a fault of the output, not of the
// input, which callers may tell apart by its type.
type ReportError struct{ Err error }

func (e *ReportError) Error() string { return e.Err.Error() }

func (e *ReportError) Unwrap() error { return e.Err }
