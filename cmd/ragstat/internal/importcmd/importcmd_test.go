package importcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

func TestRequestRun(t *testing.T) {
	in, err := filepath.Abs("../../../../traceimport/testdata/langsmith.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := input.Open(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := settings.Traces{}.Mapping(nil)
	if err != nil {
		t.Fatal(err)
	}
	var direct bytes.Buffer // what the file maps to with the default mapping
	enc := json.NewEncoder(&direct)
	enc.SetEscapeHTML(false)
	if _, err := traceimport.Import("langsmith", []*input.File{f}, m, func(t *trace.Trace) error { return enc.Encode(t) }); err != nil {
		t.Fatal(err)
	}
	want := direct.Bytes()
	tests := []struct {
		name    string
		change  func(r *Request, dir string)
		err     string
		summary bool // the summary was written
		written bool // Out and Manifest hold the traces and the manifest
	}{
		{"to files", func(*Request, string) {}, "", true, true},
		{"to stdout", func(r *Request, _ string) { r.Out, r.Manifest = "-", "" }, "", true, false},
		{"existing out", func(r *Request, dir string) { write(t, r.Out, "old") }, "the file exists", false, false},
		{"existing out forced", func(r *Request, dir string) { write(t, r.Out, "old"); r.Force = true }, "", true, true},
		{"out is the input", func(r *Request, _ string) { r.Out = in }, "is the same file as the input input", false, false},
		{"no corpus", func(r *Request, dir string) { r.Corpus = filepath.Join(dir, "nope.jsonl") }, "nope.jsonl", false, false},
		{"bad mapping", func(r *Request, _ string) { r.CloseAfter = "x" }, "x", false, false},
		{"unknown format", func(r *Request, _ string) { r.Format = "zipkin" }, `unknown trace format "zipkin"`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := Request{Format: "langsmith", Files: []string{in}, Out: filepath.Join(dir, "traces.jsonl"), Manifest: filepath.Join(dir, "manifest.json")}
			tt.change(&r, dir)
			var stdout, summary bytes.Buffer
			err := r.Run(nil, &stdout, &summary)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if got := summary.Len() > 0; got != tt.summary {
				t.Errorf("summary %q", summary.String())
			}
			if r.Out == "-" && !bytes.Equal(stdout.Bytes(), want) {
				t.Errorf("stdout differs from the golden file:\n%s", stdout.String())
			}
			got, _ := os.ReadFile(r.Out)
			man, _ := os.ReadFile(r.Manifest)
			if written := bytes.Equal(got, want) && bytes.Contains(man, []byte(`"format"`)); written != tt.written {
				t.Errorf("written %v, want %v: out %q, manifest %q", written, tt.written, got, man)
			}
			if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(leftovers) > 0 {
				t.Errorf("temporary files left: %q", leftovers)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
