package settings

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// parseStages reads stage renames written SPAN=NAME, NAME "-" leaving the
// span out, as traceimport.Mapping.Stages (nil when there are none).
func parseStages(renames []string) (map[string]string, error) {
	var stages map[string]string
	for _, s := range renames {
		span, name, ok := strings.Cut(s, "=")
		if !ok {
			return nil, &diag.OptionError{Option: "stage", Value: strconv.Quote(s), Msg: ": give SPAN=NAME or SPAN=-"}
		}
		if _, dup := stages[span]; dup {
			return nil, &diag.OptionError{Option: "stage", Value: strconv.Quote(s), Msg: fmt.Sprintf(": span %q renamed twice", diag.Literal(span))}
		}
		if stages == nil {
			stages = map[string]string{}
		}
		stages[span] = name
	}
	return stages, nil
}

// parseCloseAfter reads traceimport.Mapping.CloseAfter written as a number of records
// (1 or more) or "end" (traceimport.EndOfInput); empty is 0, the format's default.
func parseCloseAfter(s string) (int, error) {
	switch s {
	case "":
		return 0, nil
	case "end":
		return traceimport.EndOfInput, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, &diag.OptionError{Option: "close_after", Value: strconv.Quote(s), Msg: ": give a number of records (1 or more) or end"}
	}
	return n, nil
}

// Traces are a Mapping's options as text, as a command line gives them:
// Stages as parseStages reads them, CloseAfter as parseCloseAfter does.
type Traces struct {
	QueryID, System, SystemFrom, ItemID, ItemScore string
	Citation, Abstain                              string
	Strict                                         bool
	Stages                                         []string
	CloseAfter                                     string
	Convention                                     string   // as ParseConvention reads it
	Documents                                      []string // as ParseDocuments reads them
}

// Mapping reads s into the Mapping over the corpus c (nil for none).
func (s Traces) Mapping(c *corpus.Corpus) (traceimport.Mapping, error) {
	m := traceimport.Mapping{Names: flagname.Flag, QueryID: s.QueryID, System: s.System, SystemFrom: s.SystemFrom, ItemID: s.ItemID,
		ItemScore: s.ItemScore, Citation: s.Citation, Abstain: s.Abstain, Strict: s.Strict, Corpus: c}
	var err error
	if m.Stages, err = parseStages(s.Stages); err != nil {
		return m, err
	}
	if m.CloseAfter, err = parseCloseAfter(s.CloseAfter); err != nil {
		return m, err
	}
	if m.Convention, err = traceimport.ParseConvention(s.Convention); err != nil {
		return m, &diag.OptionError{Option: "convention", Err: err}
	}
	m.Documents, err = traceimport.ParseDocuments(s.Documents)
	return m, err
}

// Reader reads the formats Detect recognises, mapped by m, wherever the
// command line names systems (package systems); report, when not nil,
// receives each file's import manifest once it is read, even a failed one.
func Reader(m traceimport.Mapping, report func(*traceimport.Manifest)) systems.TraceReader {
	return systems.TraceReader{
		Detect: func(f *input.File) (string, error) {
			format, err := traceimport.Detect(f)
			return string(format), err
		},
		Scan: func(f *input.File, format string, fn func(*trace.Trace) error) error {
			man, err := traceimport.Import(traceimport.Format(format), []*input.File{f}, m, fn)
			if man != nil && report != nil {
				report(man)
			}
			return err
		},
	}
}

// Readers are the trace formats a command reads: ragstat's own
// (systems.JSONL), then others (Parquet, say), then every format Reader
// maps with m. Each mapped file's summary is written to summary, and its
// manifest kept in kept when it is not nil.
func Readers(m traceimport.Mapping, summary io.Writer, kept *Manifests, others ...systems.TraceReader) []systems.TraceReader {
	return append(append([]systems.TraceReader{systems.JSONL}, others...), Reader(m, func(man *traceimport.Manifest) {
		fmt.Fprint(summary, man.Summary())
		if kept != nil {
			kept.Keep(man)
		}
	}))
}

// Manifests keeps the manifest of every file a command imported, by file,
// for the report of its inputs.
type Manifests struct {
	mu  sync.Mutex
	got map[string]*traceimport.Manifest
}

// Keep records man under its (first) file.
func (ms *Manifests) Keep(man *traceimport.Manifest) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.got == nil {
		ms.got = map[string]*traceimport.Manifest{}
	}
	ms.got[man.Files[0]] = man
}

// Of returns the manifest of the file at path, or nil when it was not
// imported (or ms is nil).
func (ms *Manifests) Of(path string) *traceimport.Manifest {
	if ms == nil {
		return nil
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.got[path]
}
