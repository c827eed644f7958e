package shard

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
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
		_, err := Merge(tc.paths, strings.NewReader(""), Output{Output: compare.Output{Format: tc.format}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q as %s: %v, want %q", tc.paths, tc.format, err, tc.want)
		}
	}
	if _, err := Merge([]string{ev}, nil, Output{PerQuery: true, Summary: true}); fmt.Sprint(diag.Flagged(err)) != "--per-query and --summary exclude each other" {
		t.Errorf("rows per query and means only: %v", err)
	}
}

// TestSelect checks what a selection keeps and records, and that ""
// selects every query.
func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		text string
		keep bool
		err  bool
	}{
		{"", false, false},
		{"0/2", true, false},
		{"2/2", false, true},
	} {
		s, err := Select(tc.text)
		if (err != nil) != tc.err || (s.Keep() != nil) != tc.keep || (s.Part() != nil) != tc.keep {
			t.Errorf("%q: %+v, %v", tc.text, s, err)
		}
		var files eval.Files
		s.Read(&files)
		if (files.Keep != nil) != tc.keep {
			t.Errorf("%q: Keep set: %v", tc.text, files.Keep != nil)
		}
	}
	s, _ := Select("1/3")
	var files eval.Files
	s.Read(&files)
	judged := []string{"a", "b", "c", "d", "e"}
	set, err := judgments.Read(input.FromBytes("qrels.txt", []byte("a 0 x 1\nb 0 x 1\nc 0 x 1\nd 0 x 1\ne 0 x 1\n")), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keep := files.Keep(set)
	if want := s.spec.Record(judged).Positions; !maps.Equal(s.Part().Positions, want) {
		t.Errorf("positions %v, want %v", s.Part().Positions, want)
	}
	for _, q := range judged {
		if keep(q) != (Of(q, 3) == 1) {
			t.Errorf("%s kept: %v", q, keep(q))
		}
	}
}
