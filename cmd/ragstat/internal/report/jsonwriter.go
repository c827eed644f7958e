package report

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

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
func (j *jsonWriter) strings(ss []string) { jsonList(j, ss, j.string) }

// jsonList writes vs as a JSON array, each element by write; nil is null,
// as encoding/json has it.
func jsonList[T any](j *jsonWriter, vs []T, write func(T)) {
	if vs == nil {
		j.WriteString("null")
		return
	}
	j.open('[')
	for _, v := range vs {
		j.elem()
		write(v)
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

// members writes the members of the struct v into the object open at
// the writer, named and ordered as encoding/json names and orders them
// (tags, omitempty, embedded structs): a member named in stream is written
// by its function, which streams it, and every other is marshaled whole.
func (j *jsonWriter) members(v any, stream map[string]func() error) error {
	rv := reflect.Indirect(reflect.ValueOf(v))
	for _, f := range jsonFields(rv.Type()) {
		fv, err := rv.FieldByIndexErr(f.index)
		if err != nil || f.omitEmpty && isEmpty(fv) || f.omitZero && isZero(fv) {
			continue // a nil embedded pointer's fields are left out, as encoding/json leaves them
		}
		j.key(jsonKey(f.name))
		if write, ok := stream[f.name]; ok {
			if err := write(); err != nil {
				return err
			}
			continue
		}
		b, err := j.marshal(fv.Interface(), j.depth)
		if err != nil {
			return err
		}
		j.Write(b)
	}
	return nil
}

// jsonField is a struct field as encoding/json writes it.
type jsonField struct {
	name      string
	index     []int
	tagged    bool
	omitEmpty bool
	omitZero  bool
}

var fieldCache sync.Map // reflect.Type -> []jsonField

// jsonFields lists the fields encoding/json writes of struct type t, in
// its order: exported fields, those of embedded structs in their place, a
// name claimed twice kept at the shallowest depth (a tagged one first)
// and left out when that does not decide.
func jsonFields(t reflect.Type) []jsonField {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]jsonField)
	}
	var all []jsonField
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			at := append(slices.Clone(index), i)
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, at)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			o := strings.Split(opts, ",")
			f := jsonField{name: name, index: at, tagged: name != "", omitEmpty: slices.Contains(o, "omitempty"), omitZero: slices.Contains(o, "omitzero")}
			if f.name == "" {
				f.name = sf.Name
			}
			all = append(all, f)
		}
	}
	walk(t, nil)
	var out []jsonField
	for _, f := range all {
		var rivals []jsonField
		for _, g := range all {
			if g.name == f.name && len(g.index) == len(f.index) {
				rivals = append(rivals, g)
			}
		}
		shallowest := !slices.ContainsFunc(all, func(g jsonField) bool { return g.name == f.name && len(g.index) < len(f.index) })
		tagged := 0
		for _, g := range rivals {
			if g.tagged {
				tagged++
			}
		}
		if shallowest && (len(rivals) == 1 || f.tagged && tagged == 1) {
			out = append(out, f)
		}
	}
	fieldCache.Store(t, out)
	return out
}

// isZero is encoding/json's omitzero test: the value's IsZero method, or
// the zero value.
func isZero(v reflect.Value) bool {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return true
	}
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		return z.IsZero()
	}
	return v.IsZero()
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return v.IsZero()
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// floats writes a list of numbers; nil is null, as encoding/json has it.
func (j *jsonWriter) floats(vs []float64) { jsonList(j, vs, j.float) }

// floatsBy writes numbers by two keys, as encoding/json writes such maps:
// keys in order, nil as null.
func (j *jsonWriter) floatsBy(m map[string]map[string][]float64) {
	jsonMap(j, m, func(inner map[string][]float64) { jsonMap(j, inner, j.floats) })
}

// jsonMap writes m as a JSON object, its keys in order and each value by
// write; nil is null, as encoding/json has it.
func jsonMap[T any](j *jsonWriter, m map[string]T, write func(T)) {
	if m == nil {
		j.WriteString("null")
		return
	}
	j.open('{')
	for _, k := range slices.Sorted(maps.Keys(m)) {
		j.key(jsonKey(k))
		write(m[k])
	}
	j.close('}')
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
