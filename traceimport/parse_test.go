package traceimport

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestParseOptions: stage renames, close-after and the patterns as a
// command line gives them, and the errors that name the option.
func TestParseOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		got  func() (string, error)
		want string // the value, or the error
	}{
		{"no renames", func() (string, error) { s, err := ParseStages(nil); return fmt.Sprint(s == nil), err }, "true"},
		{"renames", func() (string, error) {
			s, err := ParseStages([]string{"rerank=reranked", "debug=-"})
			return fmt.Sprint(s), err
		},
			"map[debug:- rerank:reranked]"},
		{"rename without =", func() (string, error) { _, err := ParseStages([]string{"rerank"}); return "", err },
			`stage "rerank": give SPAN=NAME or SPAN=-`},
		{"renamed twice", func() (string, error) { _, err := ParseStages([]string{"a=b", "a=c"}); return "", err },
			`stage "a=c": span "a" renamed twice`},
		{"close after default", func() (string, error) { n, err := ParseCloseAfter(""); return fmt.Sprint(n), err }, "0"},
		{"close after end", func() (string, error) { n, err := ParseCloseAfter("end"); return fmt.Sprint(n == EndOfInput), err }, "true"},
		{"close after n", func() (string, error) { n, err := ParseCloseAfter("25"); return fmt.Sprint(n), err }, "25"},
		{"close after 0", func() (string, error) { _, err := ParseCloseAfter("0"); return "", err },
			`close_after "0": give a number of records (1 or more) or end`},
		{"default citation", func() (string, error) { c, a, err := Mapping{}.Patterns(); return fmt.Sprint(c, a == nil), err },
			DefaultCitation + " true"},
		{"bad abstain", func() (string, error) { _, _, err := Mapping{Abstain: "["}.Patterns(); return "", err },
			"abstain_pattern: error parsing regexp: missing closing ]: `[`"},
		{"documents", func() (string, error) {
			d, err := ParseDocuments([]string{"rerank.task=traceloop.entity.output:$[*].node", "a=b=c", "s=attr"})
			var parts []string
			for _, r := range d {
				parts = append(parts, r.Span+"|"+r.Attribute+"|"+r.Path)
			}
			return strings.Join(parts, " "), err
		}, "rerank.task|traceloop.entity.output|$[*].node a=b|c| s|attr|"},
		{"documents without =", func() (string, error) { _, err := ParseDocuments([]string{"rerank"}); return "", err },
			`documents "rerank": give SPAN=ATTRIBUTE[:JSONPATH]`},
		{"documents bad path", func() (string, error) {
			_, err := Mapping{Documents: []DocumentsRule{{Span: "s", Attribute: "a", Path: "$.x[y]"}}}.compile(OTLP)
			return "", err
		}, `documents "s=a:$.x[y]": JSONPath "$.x[y]": [y]: give [*] or an index from 0`},
		{"documents twice", func() (string, error) {
			_, err := Mapping{Documents: []DocumentsRule{{Span: "s", Attribute: "a"}, {Span: "s", Attribute: "b"}}}.compile(OTLP)
			return "", err
		}, `documents "s=b": span "s" mapped twice`},
		{"documents no attribute", func() (string, error) {
			_, err := Mapping{Documents: []DocumentsRule{{Span: "s"}}}.compile(OTLP)
			return "", err
		},
			`documents "s=": no attribute after '='`},
		{"convention", func() (string, error) { c, err := ParseConvention("OpenLLMetry"); return string(c), err }, "openllmetry"},
		{"convention auto", func() (string, error) { c, err := ParseConvention("auto"); return string(c), err }, ""},
		{"unknown convention", func() (string, error) { _, err := Settings{Convention: "otel"}.Mapping(nil); return "", err },
			`convention: unknown convention "otel": use auto, openinference, langfuse, openllmetry, genai`},
		{"convention of an export", func() (string, error) { _, err := Mapping{Convention: GenAI}.compile(Langfuse); return "", err },
			"convention genai applies to OTLP spans only"},
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
// has none.
func TestManifests(t *testing.T) {
	var ms Manifests
	man := &Manifest{Files: []string{"a.jsonl"}}
	ms.Keep(man)
	if ms.Of("a.jsonl") != man || ms.Of("b.jsonl") != nil {
		t.Errorf("Of: %v, %v", ms.Of("a.jsonl"), ms.Of("b.jsonl"))
	}
}

// TestSettingsMapping checks that Settings read into the Mapping the
// parsers give, and that a malformed stage or close-after is refused.
func TestSettingsMapping(t *testing.T) {
	for _, tc := range []struct {
		s      Settings
		stages map[string]string
		close  int
		err    string
	}{
		{Settings{QueryID: "session.id", Strict: true}, nil, 0, ""},
		{Settings{Stages: []string{"rerank=reranked", "bm25=-"}, CloseAfter: "end"}, map[string]string{"rerank": "reranked", "bm25": "-"}, EndOfInput, ""},
		{Settings{CloseAfter: "7"}, nil, 7, ""},
		{Settings{CloseAfter: "0"}, nil, 0, "close_after"},
		{Settings{Stages: []string{"nameless"}}, nil, 0, "nameless"},
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
