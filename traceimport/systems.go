package traceimport

import (
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/systems"
	"github.com/ragstat/ragstat/trace"
)

// TraceFormats returns the formats this package reads as
// systems.TraceFormat values, so every command that takes systems reads
// OTLP, LangSmith and Langfuse files directly (detected by content), mapped
// with m. done, if not nil, is called with each file's manifest once it is
// read, to summarise what could not be mapped.
func TraceFormats(m Mapping, done func(*Manifest)) []systems.TraceFormat {
	var out []systems.TraceFormat
	for _, format := range Formats {
		out = append(out, systems.TraceFormat{
			Name: string(format),
			Detect: func(f *input.File) (bool, error) {
				got, err := Detect(f)
				return got == format, err
			},
			Scan: func(f *input.File, fn func(*trace.Trace) error) error {
				man, err := Import(format, []*input.File{f}, m, fn)
				if man != nil && done != nil {
					done(man)
				}
				return err
			},
		})
	}
	return out
}
