package traceimport

import (
	"fmt"
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
