package traceimport

import (
	"fmt"
	"strconv"
	"strings"
)

// A jsonPath is the small subset of JSONPath a documents mapping takes:
// "$" (the value itself), then steps ".field" (a key of an object: letters,
// digits, "_" and "-"), "[*]" (every element of a list) and "[n]" (the
// element at index n, from 0).
type jsonPath []pathStep

// pathStep is one step: a field, an index, or every element (all).
type pathStep struct {
	field string
	index int
	all   bool
}

// maxPath bounds a path's length in characters.
const maxPath = 256

// parsePath reads a path written as above.
func parsePath(s string) (jsonPath, error) {
	if len(s) > maxPath {
		return nil, fmt.Errorf("JSONPath longer than %d characters", maxPath)
	}
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		return nil, fmt.Errorf("JSONPath %q: start with $", s)
	}
	var p jsonPath
	for rest != "" {
		switch rest[0] {
		case '.':
			n := 1
			for n < len(rest) && isFieldByte(rest[n]) {
				n++
			}
			if n == 1 {
				return nil, fmt.Errorf("JSONPath %q: a field name after '.' (letters, digits, _ and -)", s)
			}
			p = append(p, pathStep{field: rest[1:n]})
			rest = rest[n:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("JSONPath %q: '[' without ']'", s)
			}
			in := rest[1:end]
			if in == "*" {
				p = append(p, pathStep{all: true})
			} else {
				i, err := strconv.Atoi(in)
				if err != nil || i < 0 || in != strconv.Itoa(i) {
					return nil, fmt.Errorf("JSONPath %q: [%s]: give [*] or an index from 0", s, in)
				}
				p = append(p, pathStep{index: i})
			}
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("JSONPath %q: %q: use .field, [*] or [n]", s, rest)
		}
	}
	return p, nil
}

func isFieldByte(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// String writes the path as parsePath reads it.
func (p jsonPath) String() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, st := range p {
		switch {
		case st.all:
			b.WriteString("[*]")
		case st.field != "":
			b.WriteString("." + st.field)
		default:
			fmt.Fprintf(&b, "[%d]", st.index)
		}
	}
	return b.String()
}

// fans tells whether the path can select several values.
func (p jsonPath) fans() bool {
	for _, st := range p {
		if st.all {
			return true
		}
	}
	return false
}

// eval selects the values the path names in v, in document order; a
// step that does not apply (a field of a list, an index out of range)
// selects nothing.
func (p jsonPath) eval(v any) []any {
	cur := []any{v}
	for _, st := range p {
		var next []any
		for _, x := range cur {
			switch {
			case st.all:
				if l, ok := x.([]any); ok {
					next = append(next, l...)
				}
			case st.field != "":
				if m, ok := x.(map[string]any); ok {
					if y, ok := m[st.field]; ok {
						next = append(next, y)
					}
				}
			default:
				if l, ok := x.([]any); ok && st.index < len(l) {
					next = append(next, l[st.index])
				}
			}
		}
		cur = next
	}
	return cur
}
