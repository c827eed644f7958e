package traceimport

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/trace"
)

// Reader reads the formats Detect recognises, mapped by m, wherever the
// command line names systems (package systems); report, when not nil,
// receives each file's import manifest once it is read, even a failed one.
func Reader(m Mapping, report func(*Manifest)) systems.TraceReader {
	return systems.TraceReader{
		Detect: func(f *input.File) (string, error) {
			format, err := Detect(f)
			return string(format), err
		},
		Scan: func(f *input.File, format string, fn func(*trace.Trace) error) error {
			man, err := Import(Format(format), []*input.File{f}, m, fn)
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
func Readers(m Mapping, summary io.Writer, kept *Manifests, others ...systems.TraceReader) []systems.TraceReader {
	return append(append([]systems.TraceReader{systems.JSONL}, others...), Reader(m, func(man *Manifest) {
		fmt.Fprint(summary, man.Summary())
		if kept != nil {
			kept.Keep(man)
		}
	}))
}
