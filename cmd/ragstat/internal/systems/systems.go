// Package systems reads the systems named on a command line: arguments
// PATH or NAME=PATH, each file opened once and recognised by its content as
// a run, a file of traces, or a saved ragstat result. Trace formats plug in
// as TraceReader values (ragstat's own JSON Lines is built in), so a reader
// of another format serves every command that takes systems.
package systems

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
)

// Kind is what a file holds.
type Kind string

// The kinds of file a system comes from.
const (
	Run    Kind = "run"    // ranked lists of one system
	Traces Kind = "traces" // what one or more pipelines did, stage by stage
	Result Kind = "result" // a saved ragstat JSON result (its systems' scores)
)

// A TraceReader recognises trace formats by content and reads them.
type TraceReader struct {
	// Detect names the format f holds; "" when it is none of this
	// reader's.
	Detect func(f *input.File) (string, error)
	// Scan calls fn with every trace of f, which holds format, possibly
	// concurrently.
	Scan func(f *input.File, format string, fn func(*trace.Trace) error) error
}

// JSONL reads ragstat's own trace format (docs/formats.md), named "jsonl":
// JSON Lines, one trace per query and system.
var JSONL = TraceReader{
	Detect: func(f *input.File) (string, error) {
		if ok, err := trace.Is(f); !ok || err != nil {
			return "", err
		}
		return "jsonl", nil
	},
	Scan: func(f *input.File, _ string, fn func(*trace.Trace) error) error { return trace.Scan(f, 0, fn) },
}

// Options say which kinds are accepted and which trace formats are known.
type Options struct {
	// Accept lists the kinds allowed; another kind is an error. Empty:
	// every kind.
	Accept []Kind
	// Traces are tried in order before a file is taken for a run. Nil
	// means JSONL only.
	Traces []TraceReader
}

// Input is one file named on the command line.
type Input struct {
	Name   string // NAME of NAME=PATH; empty when the argument was a path
	Path   string
	File   *input.File
	Kind   Kind
	Format string // the trace format, when Kind is Traces
	reader *TraceReader
}

// System is the name of a run: NAME when given, else the file's base name.
func (in *Input) System() string {
	if in.Name != "" {
		return in.Name
	}
	return in.File.Base()
}

// Scan calls fn with every trace of a traces input.
func (in *Input) Scan(fn func(*trace.Trace) error) error {
	if in.Kind != Traces {
		return fmt.Errorf("%s holds %s, not traces", in.Path, in.Kind)
	}
	return in.reader.Scan(in.File, in.Format, fn)
}

// Scan calls fn with every trace of every input, which all hold traces,
// and gathers the problems of every file (diag.List).
func Scan(ins []*Input, fn func(*trace.Trace) error) error {
	var errs diag.List
	for _, in := range ins {
		errs.Add(in.Scan(fn))
	}
	return errs.Err()
}

// Split splits NAME=PATH; a plain path, or one whose part before "=" holds
// a path separator, has no name.
func Split(arg string) (name, path string) {
	if n, p, ok := strings.Cut(arg, "="); ok && n != "" && !strings.ContainsAny(n, "/\\") {
		return n, p
	}
	return "", arg
}

// Paths are the paths of NAME=PATH arguments (Split).
func Paths(args []string) []string {
	paths := make([]string, len(args))
	for i, a := range args {
		_, paths[i] = Split(a)
	}
	return paths
}

// Open opens and recognises every argument ("-" reads stdin), refuses a
// kind opt does not accept, and refuses two runs of one name. On error the
// files already opened are closed.
func Open(args []string, stdin io.Reader, opt Options) (ins []*Input, err error) {
	defer func() {
		if err != nil {
			Close(ins)
			ins = nil
		}
	}()
	formats := opt.Traces
	if formats == nil {
		formats = []TraceReader{JSONL}
	}
	var names Names
	for _, arg := range args {
		in := &Input{}
		in.Name, in.Path = Split(arg)
		if in.File, err = input.Open(in.Path, stdin); err != nil {
			return ins, err
		}
		ins = append(ins, in)
		if err := in.recognise(formats); err != nil {
			return ins, err
		}
		if len(opt.Accept) > 0 && !slices.Contains(opt.Accept, in.Kind) {
			return ins, &diag.Error{File: in.File.Name, Msg: fmt.Sprintf("holds %s; %s expected", in.describe(), kinds(opt.Accept)),
				Hint: elsewhere[in.Kind]}
		}
		if in.Kind == Run {
			if err := names.Claim(in.System(), in.File.Name); err != nil {
				return ins, err
			}
		}
	}
	return ins, nil
}

func (in *Input) describe() string {
	if in.Kind == Traces {
		return "traces (" + in.Format + ")"
	}
	if in.Kind == Result {
		return "a saved ragstat result"
	}
	return "a run"
}

// elsewhere says which commands read a kind of file, for one given where
// it is not accepted.
var elsewhere = map[Kind]string{
	Run:    "ragstat eval and ragstat compare read runs",
	Traces: "ragstat stages evaluates traces stage by stage (ragstat compare and ragstat pool read them too)",
	Result: "ragstat compare reads saved results, and ragstat report renders them",
}

func kinds(ks []Kind) string {
	words := make([]string, len(ks))
	for i, k := range ks {
		words[i] = map[Kind]string{Run: "runs", Traces: "traces", Result: "saved results"}[k]
	}
	return strings.Join(words, " or ")
}

// recognise sets the kind: a saved result, then each trace format, then a
// run.
func (in *Input) recognise(formats []TraceReader) error {
	saved, err := isSaved(in.File)
	if err != nil {
		return err
	}
	if saved {
		in.Kind = Result
		return nil
	}
	for i := range formats {
		name, err := formats[i].Detect(in.File)
		if err != nil {
			return err
		}
		if name != "" {
			in.Kind, in.Format, in.reader = Traces, name, &formats[i]
			return nil
		}
	}
	in.Kind = Run
	return nil
}

// isSaved reports whether f is a ragstat JSON result: an object whose
// first member is "tool": "ragstat".
func isSaved(f *input.File) (bool, error) {
	head, err := f.Head(256)
	if err != nil {
		return false, err
	}
	d := json.NewDecoder(bytes.NewReader(head))
	var toks []any
	for range 3 {
		t, err := d.Token()
		if err != nil {
			return false, nil
		}
		toks = append(toks, t)
	}
	return toks[0] == json.Delim('{') && toks[1] == "tool" && toks[2] == "ragstat", nil
}

// Files are the inputs' files, in order.
func Files(ins []*Input) []*input.File {
	files := make([]*input.File, len(ins))
	for i, in := range ins {
		files[i] = in.File
	}
	return files
}

// Close closes every input's file (removing copies of standard input).
func Close(ins []*Input) {
	for _, in := range ins {
		in.File.Close()
	}
}

// Names refuses a system name given by two inputs. The zero Names is
// ready to use.
type Names struct{ by map[string]string }

// Claim records that file gives system; the same name from another file,
// or twice from one file named twice, is an error.
func (n *Names) Claim(system, file string) error {
	if n.by == nil {
		n.by = map[string]string{}
	}
	if prev, ok := n.by[system]; ok {
		return fmt.Errorf("two systems are named %q (in %s and %s): name them with NAME=PATH", system, prev, file)
	}
	n.by[system] = file
	return nil
}
