package traceimport

import (
	"encoding/json"
	"io"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
)

// ImportJSONL imports files (Import) and writes each trace to w as a line
// of JSON: a file of ragstat traces. The manifest is returned with the
// error too, when there is one, to say what was read.
func ImportJSONL(w io.Writer, f Format, files []*input.File, m Mapping) (*Manifest, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return Import(f, files, m, func(t *trace.Trace) error { return enc.Encode(t) })
}

// WriteJSON writes the manifest as indented JSON.
func (m *Manifest) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
