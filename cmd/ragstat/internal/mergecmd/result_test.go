package mergecmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
)

// TestMergeRefuses checks what Merge refuses before it reads the parts
// whole: no parts, parts of two kinds, a format the parts' kind has not.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	part := func(kind string) string {
		path := filepath.Join(dir, kind+".json")
		if err := os.WriteFile(path, []byte(`{"manifest":{"kind":"`+kind+`"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ev, st, cmp := part("eval"), part("stages"), part("compare")
	for _, tc := range []struct {
		paths  []string
		format string
		want   string
	}{
		{nil, "table", "no partial results"},
		{[]string{ev, st}, "table", "is an eval result but"},
		{[]string{st, st}, "csv", "stages results merge as table or json, not csv"},
		{[]string{cmp}, "tsv", "compare results merge as table, json, csv, markdown or html, not tsv"},
		{[]string{ev}, "html", "eval results merge as"},
		{[]string{filepath.Join(dir, "none.json")}, "table", "none.json"},
	} {
		_, err := Merge(tc.paths, strings.NewReader(""), Output{Format: tc.format})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q as %s: %v, want %q", tc.paths, tc.format, err, tc.want)
		}
	}
	if _, err := Merge([]string{ev}, nil, Output{PerQuery: true, Summary: true}); flagname.Flagged(err) != "--per-query and --summary exclude each other" {
		t.Errorf("rows per query and means only: %v", err)
	}
}
