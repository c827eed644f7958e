package traceimport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/trace"
)

func TestReaders(t *testing.T) {
	other := systems.TraceReader{Detect: func(*input.File) (string, error) { return "", nil }}
	for _, tt := range []struct {
		name    string
		kept    *Manifests
		others  []systems.TraceReader
		readers int
	}{
		{"own and mapped", nil, nil, 2},
		{"with another format", &Manifests{}, []systems.TraceReader{other}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var summary strings.Builder
			rs := Readers(Mapping{}, &summary, tt.kept, tt.others...)
			if len(rs) != tt.readers {
				t.Fatalf("%d readers, want %d", len(rs), tt.readers)
			}
			path := filepath.Join("testdata", "langsmith.jsonl")
			f, err := input.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			last := rs[len(rs)-1]
			format, err := last.Detect(f)
			if err != nil || format != "langsmith" {
				t.Fatalf("detected %q, %v", format, err)
			}
			if err := last.Scan(f, format, func(*trace.Trace) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if summary.Len() == 0 {
				t.Error("no summary written")
			}
			if tt.kept != nil && tt.kept.Of(f.Name) == nil {
				t.Errorf("no manifest kept for %s", f.Name)
			}
		})
	}
}
