package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/jsonenc"
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
func jsonKey(name string) string { return string(jsonenc.AppendString(nil, name)) + ":" }

func (j *jsonWriter) string(s string) {
	j.num = jsonenc.AppendString(j.num[:0], s)
	j.Write(j.num)
}

// float writes v, or null where it is undefined (NaN, an infinity).
func (j *jsonWriter) float(v float64) {
	if !isFinite(v) {
		j.WriteString("null")
		return
	}
	j.num = jsonenc.AppendFloat(j.num[:0], v)
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
