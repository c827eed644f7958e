package settings

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
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
			rs := Readers(traceimport.Mapping{}, &summary, tt.kept, tt.others...)
			if len(rs) != tt.readers {
				t.Fatalf("%d readers, want %d", len(rs), tt.readers)
			}
			path := filepath.Join("..", "..", "..", "..", "traceimport", "testdata", "langsmith.jsonl")
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

// TestTracesMapping checks that Traces read into the Mapping the
// parsers give, and that a malformed stage or close-after is refused.
func TestTracesMapping(t *testing.T) {
	for _, tc := range []struct {
		s      Traces
		stages map[string]string
		close  int
		err    string
	}{
		{Traces{QueryID: "session.id", Strict: true}, nil, 0, ""},
		{Traces{Stages: []string{"rerank=reranked", "bm25=-"}, CloseAfter: "end"}, map[string]string{"rerank": "reranked", "bm25": "-"}, traceimport.EndOfInput, ""},
		{Traces{CloseAfter: "7"}, nil, 7, ""},
		{Traces{Convention: "otel"}, nil, 0, `convention: unknown convention "otel": use auto, openinference, langfuse, openllmetry, genai`},
		{Traces{CloseAfter: "0"}, nil, 0, "close_after"},
		{Traces{Stages: []string{"nameless"}}, nil, 0, "nameless"},
	} {
		m, err := tc.s.Mapping(nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: %v, want %q", tc.s, err, tc.err)
			}
			continue
		}
		if err != nil || m.QueryID != tc.s.QueryID || m.Strict != tc.s.Strict || m.CloseAfter != tc.close || !maps.Equal(m.Stages, tc.stages) {
			t.Errorf("%+v: %+v, %v", tc.s, m, err)
		}
	}
}

// TestParseTraces: stage renames and close-after as the command line gives
// them, and the errors that name the option.
func TestParseTraces(t *testing.T) {
	for _, c := range []struct {
		name string
		got  func() (string, error)
		want string // the value, or the error
	}{
		{"no renames", func() (string, error) { s, err := parseStages(nil); return fmt.Sprint(s == nil), err }, "true"},
		{"renames", func() (string, error) {
			s, err := parseStages([]string{"rerank=reranked", "debug=-"})
			return fmt.Sprint(s), err
		},
			"map[debug:- rerank:reranked]"},
		{"rename without =", func() (string, error) { _, err := parseStages([]string{"rerank"}); return "", err },
			`stage "rerank": give SPAN=NAME or SPAN=-`},
		{"renamed twice", func() (string, error) { _, err := parseStages([]string{"a=b", "a=c"}); return "", err },
			`stage "a=c": span "a" renamed twice`},
		{"close after default", func() (string, error) { n, err := parseCloseAfter(""); return fmt.Sprint(n), err }, "0"},
		{"close after end", func() (string, error) {
			n, err := parseCloseAfter("end")
			return fmt.Sprint(n == traceimport.EndOfInput), err
		}, "true"},
		{"close after n", func() (string, error) { n, err := parseCloseAfter("25"); return fmt.Sprint(n), err }, "25"},
		{"close after 0", func() (string, error) { _, err := parseCloseAfter("0"); return "", err },
			`close_after "0": give a number of records (1 or more) or end`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.got()
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestManifests: a manifest is found by its file, and a file not imported
// (or no Manifests at all) has none.
func TestManifests(t *testing.T) {
	var ms Manifests
	man := &traceimport.Manifest{Files: []string{"a.jsonl"}}
	ms.Keep(man)
	if ms.Of("a.jsonl") != man || ms.Of("b.jsonl") != nil {
		t.Errorf("Of: %v, %v", ms.Of("a.jsonl"), ms.Of("b.jsonl"))
	}
	if (*Manifests)(nil).Of("a.jsonl") != nil {
		t.Error("a nil Manifests holds a manifest")
	}
}
