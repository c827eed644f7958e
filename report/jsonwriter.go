package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonWriter writes a JSON value a token at a time, byte for byte as
// encoding/json's Encoder writes it (HTML characters escaped), compact or
// indented by two spaces, without reflection.
type jsonWriter struct {
	*writer
	indent bool
	depth  int
	first  bool // the next member is the first of its container
}

// open starts an object ('{') or an array ('[').
func (j *jsonWriter) open(c byte) {
	j.WriteByte(c)
	j.depth++
	j.first = true
}

// close ends the innermost object ('}') or array (']').
func (j *jsonWriter) close(c byte) {
	j.depth--
	if !j.first {
		j.newline()
	}
	j.WriteByte(c)
	j.first = false
}

// elem starts an array element.
func (j *jsonWriter) elem() {
	if !j.first {
		j.WriteByte(',')
	}
	j.first = false
	j.newline()
}

// key starts an object member; quoted is the key as jsonKey returns it.
func (j *jsonWriter) key(quoted string) {
	j.elem()
	j.WriteString(quoted)
	if j.indent {
		j.WriteByte(' ')
	}
}

func (j *jsonWriter) newline() {
	if j.indent {
		j.WriteByte('\n')
		j.spaces(2 * j.depth)
	}
}

// jsonKey is a member name as written: quoted, escaped, and followed by
// its colon.
func jsonKey(name string) string { return string(appendJSONString(nil, name)) + ":" }

func (j *jsonWriter) string(s string) {
	j.num = appendJSONString(j.num[:0], s)
	j.Write(j.num)
}

func (j *jsonWriter) float(v float64) {
	j.num = appendJSONFloat(j.num[:0], v)
	j.Write(j.num)
}

func (j *jsonWriter) bool(b bool) { j.WriteString(strconv.FormatBool(b)) }

// strings writes a list of strings; nil is null, as encoding/json has it.
func (j *jsonWriter) strings(ss []string) {
	if ss == nil {
		j.WriteString("null")
		return
	}
	j.open('[')
	for _, s := range ss {
		j.elem()
		j.string(s)
	}
	j.close(']')
}

// marshal encodes v with encoding/json as it reads at depth, for the parts
// of a document that are not per-query rows.
func (j *jsonWriter) marshal(v any, depth int) ([]byte, error) {
	if j.indent {
		return json.MarshalIndent(v, strings.Repeat("  ", depth), "  ")
	}
	return json.Marshal(v)
}

// list writes n elements of an array, each by elem(i); none is null, as
// encoding/json writes a nil slice.
func (j *jsonWriter) list(n int, elem func(i int) error) error {
	if n == 0 {
		j.WriteString("null")
		return nil
	}
	j.open('[')
	for i := range n {
		j.elem()
		if err := elem(i); err != nil {
			return err
		}
	}
	j.close(']')
	return nil
}

// openMarshaled writes v, an object whose last member is last with the
// value null, with encoding/json, but stops before that member: the
// object stays open for the caller to write last's value and close it.
func (j *jsonWriter) openMarshaled(v any, last string) error {
	b, err := j.marshal(v, j.depth)
	if err != nil {
		return err
	}
	tail := jsonKey(last) + "null}"
	if j.indent {
		tail = jsonKey(last) + " null\n" + strings.Repeat("  ", j.depth) + "}"
	}
	b, ok := bytes.CutSuffix(b, []byte(tail))
	if !ok {
		return fmt.Errorf("json: %T does not end with %s", v, last)
	}
	b = bytes.TrimRight(b, " \n")
	j.first = b[len(b)-1] == '{'
	j.Write(bytes.TrimSuffix(b, []byte{','}))
	j.depth++
	return nil
}

// marshalAll marshals each of vs at depth, all before a document is
// started, so that an error leaves nothing half written.
func (j *jsonWriter) marshalAll(depth int, vs ...any) ([][]byte, error) {
	out := make([][]byte, len(vs))
	for i, v := range vs {
		var err error
		if out[i], err = j.marshal(v, depth); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it: control characters, quote, backslash, <, > and &, U+2028 and
// U+2029; invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendJSONFloat appends a finite v as encoding/json writes a float64:
// the shortest decimal that reads back as v, with an exponent below 1e-6
// and from 1e21 on.
func appendJSONFloat(dst []byte, v float64) []byte {
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, v, format, -1, 64)
	if format == 'e' { // e-09 becomes e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// finite returns encoding/json's error for the first value JSON cannot
// hold, so that a document is refused before any of it is written.
func finite(lists ...[]float64) error {
	for _, values := range lists {
		for _, v := range values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
	}
	return nil
}
