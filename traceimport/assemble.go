package traceimport

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
)

// Import reads every file, all in format f, and calls emit with each ragstat
// trace as it closes (in the order traces close: deterministic for a given
// input). Spans of one trace may be spread over several files. It returns
// the manifest of the import; the error gathers malformed input, traces
// that are not valid ragstat traces, a second trace for one query and
// system, and, under Mapping.Strict, every problem.
func Import(f Format, files []*input.File, m Mapping, emit func(*trace.Trace) error) (*Manifest, error) {
	read, ok := readers[f]
	if !ok {
		return nil, fmt.Errorf("unknown trace format %q", f)
	}
	r, err := m.compile(f)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, file := range files {
		names = append(names, file.Name)
	}
	a := &assembler{r: r, man: newManifest(f, names, r), emit: emit, format: f,
		open: map[string]*openTrace{}, closed: map[string]bool{}, written: map[[2]string]string{}, turns: map[[2]string]int{}, orders: map[string]map[string]int{}}
	var errs diag.List
	for _, file := range files {
		if errs.Add(read(file, r, a.record)) {
			break
		}
	}
	if !errs.Full() {
		errs.Add(a.end())
	}
	a.man.finish()
	if errs.Len() == 0 {
		errs.Add(a.man.nothingMapped(r.Convention))
	}
	errs.Sort()
	return a.man, errs.Err()
}

// readers read one file's records: each is called with the spans of one
// record (a line, a request body, a run) and where it was read, and
// returns an error to stop on.
var readers = map[Format]func(f *input.File, r *rules, each func(at place, spans []*span) error) error{
	OTLP:      readOTLP,
	LangSmith: readLangSmith,
	Langfuse:  readLangfuse,
}

// openTrace is a trace whose spans are still arriving.
type openTrace struct {
	id     string
	seq    int // order of first arrival
	spans  []*span
	ids    map[string]bool
	wanted map[string]bool // parents named but not read yet
	root   bool
	done   int // the record after which it was complete; 0: not complete
	touch  int // the last record that added a span
}

func (t *openTrace) complete() bool { return t.root && len(t.wanted) == 0 }

// assembler groups spans into traces and closes each when it is complete.
type assembler struct {
	r       *rules
	man     *Manifest
	emit    func(*trace.Trace) error
	format  Format
	open    map[string]*openTrace
	closed  map[string]bool
	ready   []readyTrace              // complete traces, by the record they completed on
	written map[[2]string]string      // (query, system) -> trace id
	turns   map[[2]string]int         // (conversation, system) -> turns closed
	orders  map[string]map[string]int // system -> step name -> place, from a trace whose order is known
	seq     int
	touched []*openTrace
}

type readyTrace struct {
	t    *openTrace
	done int
}

// record adds the spans of one record, then closes the traces complete
// for long enough.
func (a *assembler) record(at place, spans []*span) error {
	a.man.Records++
	var errs diag.List
	for _, s := range spans {
		errs.Add(a.add(s))
	}
	n := a.man.Records
	for _, t := range a.touched {
		switch {
		case !t.complete():
			t.done = 0
		case t.done == 0:
			t.done = n
			a.ready = append(a.ready, readyTrace{t, n})
		}
	}
	a.touched = a.touched[:0]
	if a.r.closeAfter == EndOfInput {
		return errs.Err()
	}
	for len(a.ready) > 0 && a.ready[0].done+a.r.closeAfter <= n {
		rt := a.ready[0]
		a.ready = a.ready[1:]
		if rt.t.done == rt.done && a.open[rt.t.id] == rt.t {
			errs.Add(a.close(rt.t))
		}
	}
	return errs.Err()
}

// add files one span under its trace.
func (a *assembler) add(s *span) error {
	a.man.Spans++
	switch {
	case s.user:
		a.countConvention(mappedConvention)
	case s.conv != "":
		a.countConvention(string(s.conv))
	default:
		a.countConvention(noConvention)
	}
	if a.closed[s.trace] {
		return a.man.problem(a.r, LateSpan, s.place, s.id, s.name)
	}
	t := a.open[s.trace]
	if t == nil {
		a.seq++
		t = &openTrace{id: s.trace, seq: a.seq, ids: map[string]bool{}, wanted: map[string]bool{}}
		a.open[s.trace] = t
	}
	if t.ids[s.id] {
		return a.man.problem(a.r, RepeatedSpan, s.place, s.id, s.name)
	}
	if t.touch != a.man.Records {
		t.touch = a.man.Records
		a.touched = append(a.touched, t)
	}
	t.spans = append(t.spans, s)
	t.ids[s.id] = true
	a.man.seen(s)
	delete(t.wanted, s.id)
	if s.parent == "" {
		t.root = true
	} else if !t.ids[s.parent] {
		t.wanted[s.parent] = true
	}
	return nil
}

// end closes every trace still open, in the order they began.
func (a *assembler) end() error {
	rest := make([]*openTrace, 0, len(a.open))
	for _, t := range a.open {
		rest = append(rest, t)
	}
	slices.SortFunc(rest, func(x, y *openTrace) int { return x.seq - y.seq })
	var errs diag.List
	for _, t := range rest {
		if !t.complete() {
			missing := slices.Sorted(func(yield func(string) bool) {
				for id := range t.wanted {
					if !yield(id) {
						return
					}
				}
			})
			errs.Add(a.man.problem(a.r, MissingParent, t.spans[0].place, "", "trace "+t.id+" (parent "+strings.Join(missing, ", ")+")"))
		}
		if errs.Add(a.close(t)) {
			break
		}
	}
	return errs.Err()
}

// close maps a trace and hands it on.
func (a *assembler) close(t *openTrace) error {
	delete(a.open, t.id)
	a.closed[t.id] = true
	out, err := a.build(t)
	if err != nil || out == nil {
		return err
	}
	key := [2]string{out.Query, out.System}
	if other, dup := a.written[key]; dup {
		return &diag.Error{File: t.spans[0].place.file, Line: t.spans[0].place.line, Query: out.Query,
			Msg:  fmt.Sprintf("system %q: traces %s and %s both answer this query", out.System, other, t.id),
			Hint: "one trace per query and system: keep one run of each query, or tell the systems apart with {system_from}"}
	}
	a.written[key] = t.id
	a.man.Traces++
	return a.emit(out)
}

// fileSystem is the system named after a file: its base name without
// extensions.
func fileSystem(name string) string {
	base := filepath.Base(name)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// countConvention counts a span under a convention (OTLP only).
func (a *assembler) countConvention(c string) {
	if a.man.Conventions != nil {
		a.man.Conventions[c]++
	}
}
