package traceimport

import (
	"fmt"
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
