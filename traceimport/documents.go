package traceimport

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// DocumentsRule maps the retrieval list of spans no convention reads:
// spans named Span are retrieval stages whose documents are in the
// attribute (or export field) Attribute, a JSON string or a structured
// value, at Path within it (a JSONPath of the subset parsePath reads:
// $, .field, [*], [n]; "" is $). A path that can select several values
// (with [*]) selects the documents; one that cannot must select a list of
// them. Ids, scores and texts are read from each document as from the
// conventions' (id or id_, score, text, content or pageContent, metadata;
// a LlamaIndex node's fields), with Mapping.ItemID and ItemScore.
type DocumentsRule struct {
	Span, Attribute, Path string
}

// String writes the rule as ParseDocuments reads it.
func (d DocumentsRule) String() string {
	if d.Path == "" {
		return d.Span + "=" + d.Attribute
	}
	return d.Span + "=" + d.Attribute + ":" + d.Path
}

// documentsRule is a rule with its path parsed.
type documentsRule struct {
	DocumentsRule
	path jsonPath
}

// ParseDocuments reads documents rules written SPAN=ATTRIBUTE[:JSONPATH]
// (nil when there are none).
func ParseDocuments(specs []string) ([]DocumentsRule, error) {
	var out []DocumentsRule
	for _, spec := range specs {
		eq := strings.LastIndexByte(spec, '=')
		if eq < 0 {
			return nil, &diag.OptionError{Option: "documents", Value: strconv.Quote(spec), Msg: ": give SPAN=ATTRIBUTE[:JSONPATH]"}
		}
		d := DocumentsRule{Span: spec[:eq]}
		d.Attribute, d.Path, _ = strings.Cut(spec[eq+1:], ":")
		out = append(out, d)
	}
	return out, nil
}

// compileDocuments checks the rules and parses their paths.
func compileDocuments(rules []DocumentsRule) ([]documentsRule, error) {
	var out []documentsRule
	seen := map[string]bool{}
	for _, d := range rules {
		bad := func(msg string) error {
			return &diag.OptionError{Option: "documents", Value: strconv.Quote(diag.Literal(d.String())), Msg: msg}
		}
		switch {
		case strings.TrimSpace(d.Span) == "":
			return nil, bad(": no span name before '='")
		case strings.TrimSpace(d.Attribute) == "":
			return nil, bad(": no attribute after '='")
		case seen[d.Span]:
			return nil, bad(fmt.Sprintf(": span %q mapped twice", diag.Literal(d.Span)))
		}
		seen[d.Span] = true
		path, err := parsePath(d.Path)
		if d.Path == "" {
			path, err = nil, nil
		}
		if err != nil {
			return nil, bad(": " + diag.Literal(err.Error()))
		}
		out = append(out, documentsRule{d, path})
	}
	return out, nil
}

// mapped reads a span by the documents rule that names it, if any: it is
// then a retrieval stage, with the documents found (none, and reported,
// when the attribute is missing or holds no list at the path).
func (r *rules) mapped(s *span, get finder) bool {
	for _, d := range r.docRules {
		if d.Span != s.name {
			continue
		}
		s.user, s.role, s.kind = true, roleRetriever, "documents "+d.String()
		v, ok := get(d.Attribute)
		if !ok {
			return true
		}
		if str, isStr := v.(string); isStr {
			var parsed any
			if json.Unmarshal([]byte(str), &parsed) != nil {
				return true
			}
			v = parsed
		}
		found := d.path.eval(v)
		var list any
		switch {
		case d.path.fans():
			list = found
		case len(found) == 1:
			list = found[0]
		default:
			return true
		}
		if docs, ok := documentList(list, true); ok {
			r.setDocs(s, docs)
		}
		return true
	}
	return false
}
