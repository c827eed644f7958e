package traceimport

import (
	"encoding/json"
	"io"
	"sync"

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

// Manifests keeps the manifest of every file imported, by file, for a
// caller that reads several files at once (Reader's report).
type Manifests struct {
	mu  sync.Mutex
	got map[string]*Manifest
}

// Keep records man under its (first) file.
func (ms *Manifests) Keep(man *Manifest) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.got == nil {
		ms.got = map[string]*Manifest{}
	}
	ms.got[man.Files[0]] = man
}

// Of returns the manifest of the file at path, or nil when it was not
// imported.
func (ms *Manifests) Of(path string) *Manifest {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.got[path]
}
