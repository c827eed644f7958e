package traceimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// KeySeen is an attribute key seen on spans mapped to nothing: on how
// many, the first span's name, and whether it held JSON (a list or an
// object, structured or as a string), which a documents rule could read.
type KeySeen struct {
	Key   string `json:"key"`
	Spans int    `json:"spans"`
	Span  string `json:"first_span"`
	JSON  bool   `json:"json,omitempty"`
}

// attrKey is one key of an unmapped span.
type attrKey struct {
	key  string
	json bool
}

// maxKeysSeen bounds the keys the manifest keeps.
const maxKeysSeen = 256

// seen counts the keys of a span mapped to nothing.
func (m *Manifest) seen(s *span) {
	for _, k := range s.attrKeys {
		ks := m.keys[k.key]
		if ks == nil {
			if len(m.keys) == maxKeysSeen {
				continue
			}
			ks = &KeySeen{Key: k.key, Span: s.name}
			m.keys[k.key] = ks
		}
		ks.Spans++
		ks.JSON = ks.JSON || k.json
	}
}

// NothingMappedError is Import's error when it wrote no trace, or no trace
// with a retrieval list: a report from such an import would be confident
// about what it never saw. It names the attribute keys the unmapped spans
// carry and what would map them.
type NothingMappedError struct {
	Traces int       // traces written
	Spans  int       // spans read
	Keys   []KeySeen // what the spans mapped to nothing carry, the most common first
	Forced Convention
}

func (e *NothingMappedError) Error() string { return e.option().Error() }

// Unwrap is the error as an OptionError, whose message names the options
// that would map the spans.
func (e *NothingMappedError) Unwrap() error { return e.option() }

// maxKeysShown bounds the keys the message names.
const maxKeysShown = 12

func (e *NothingMappedError) option() *diag.OptionError {
	var b strings.Builder
	if e.Traces == 0 {
		fmt.Fprintf(&b, "no trace written from %s", plural(e.Spans, "span"))
	} else {
		fmt.Fprintf(&b, "no retrieval list mapped in %s (%s): every score would be a guess", plural(e.Traces, "trace"), plural(e.Spans, "span"))
	}
	if len(e.Keys) == 0 {
		b.WriteString("; no span mapped to nothing carries an attribute that could hold documents")
		return &diag.OptionError{Msg: diag.Literal(b.String())}
	}
	b.WriteString("; the spans mapped to nothing carry ")
	var keys, jsonKeys []string
	for i, k := range e.Keys {
		if i < maxKeysShown {
			keys = append(keys, fmt.Sprintf("%s (%d)", k.Key, k.Spans))
		}
		if k.JSON && len(jsonKeys) < 3 {
			jsonKeys = append(jsonKeys, fmt.Sprintf("%s=%s:$", k.Span, k.Key))
		}
	}
	b.WriteString(strings.Join(keys, ", "))
	if len(e.Keys) > maxKeysShown {
		fmt.Fprintf(&b, " and %d more", len(e.Keys)-maxKeysShown)
	}
	msg := diag.Literal(b.String())
	var hints []string
	if c := e.convention(); c != "" {
		hints = append(hints, "{convention} auto (the spans carry "+string(c)+" attributes)")
	}
	switch {
	case len(hints) > 0: // the convention explains them
	case len(jsonKeys) > 0:
		hints = append(hints, "{documents} "+diag.Literal(strings.Join(jsonKeys, " or "))+" (SPAN=ATTRIBUTE[:JSONPATH] names the spans whose attribute holds the documents)")
	default:
		hints = append(hints, "{documents} SPAN=ATTRIBUTE[:JSONPATH] for the spans whose attribute holds the documents")
	}
	return &diag.OptionError{Msg: msg + "; map them with " + strings.Join(hints, ", or ")}
}

// convention is a convention other than the one forced whose attributes
// the unmapped spans carry.
func (e *NothingMappedError) convention() Convention {
	if e.Forced == "" {
		return ""
	}
	prefixes := map[Convention][]string{OpenInference: {"openinference.", "retrieval.documents."}, LangfuseOTel: {"langfuse."},
		OpenLLMetry: {"traceloop.", "llm.request.type"}, GenAI: {"gen_ai.operation.name"}}
	for _, c := range allConventions {
		if c == e.Forced {
			continue
		}
		for _, k := range e.Keys {
			for _, p := range prefixes[c] {
				if strings.HasPrefix(k.Key, p) {
					return c
				}
			}
		}
	}
	return ""
}

// nothingMapped is the error of an import that mapped nothing, or nil.
func (m *Manifest) nothingMapped(forced Convention) error {
	if m.Traces > 0 && m.Lists > 0 {
		return nil
	}
	return &NothingMappedError{Traces: m.Traces, Spans: m.Spans, Keys: m.Unmapped, Forced: forced}
}

// sortKeys lists the keys seen, the most common first.
func sortKeys(keys map[string]*KeySeen) []KeySeen {
	out := []KeySeen{}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		out = append(out, *keys[k])
	}
	slices.SortStableFunc(out, func(x, y KeySeen) int { return y.Spans - x.Spans })
	return out
}

// plural writes a count of things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
