package compare

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/ragstat/ragstat/internal/jsonenc"
)

// writeJSON writes r as encoding/json's Encoder indented by two spaces
// writes it, byte for byte, but streams the per-query parts (the query
// ids, their texts and every system's values) through a buffered writer
// without reflection; the rest is marshaled as usual.
func writeJSON(w io.Writer, r *Result) error {
	for _, byMetric := range r.Values {
		for _, values := range byMetric {
			if err := jsonenc.Finite(values); err != nil {
				return err
			}
		}
	}
	head := *r
	head.Queries, head.Text, head.Values = nil, nil, nil
	doc, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	// The members left null are at the top level, indented by two spaces;
	// no string holds a raw line break, so each is found once.
	const queries, values = "\n  \"queries\": null", "\n  \"values\": null"
	q, v := bytes.Index(doc, []byte(queries)), bytes.Index(doc, []byte(values))
	if q < 0 || v < q {
		return fmt.Errorf("compare: the result's JSON lacks its queries or values")
	}
	out := &jsonOut{Writer: bufio.NewWriterSize(w, 64<<10)}
	out.Write(doc[:q+len(queries)-len("null")])
	array(out, r.Queries, "  ", out.string)
	if len(r.Text) > 0 {
		out.WriteString(",\n  \"text\": ")
		array(out, r.Text, "  ", out.string)
	}
	out.Write(doc[q+len(queries) : v+len(values)-len("null")])
	object(out, r.Values, "  ", func(byMetric map[string][]float64) {
		object(out, byMetric, "    ", func(vs []float64) { array(out, vs, "      ", out.float) })
	})
	out.Write(doc[v+len(values):])
	out.WriteByte('\n')
	return out.Flush()
}

// jsonOut writes JSON scalars through a buffer, formatting each once into
// a reused slice.
type jsonOut struct {
	*bufio.Writer
	num []byte
}

func (o *jsonOut) string(s string) {
	o.num = jsonenc.AppendString(o.num[:0], s)
	o.Write(o.num)
}

func (o *jsonOut) float(v float64) {
	o.num = jsonenc.AppendFloat(o.num[:0], v)
	o.Write(o.num)
}

// array writes vs as encoding/json indents a slice whose line starts at
// indent: null when nil, [] when empty, else an element a line.
func array[V any](o *jsonOut, vs []V, indent string, value func(V)) {
	switch {
	case vs == nil:
		o.WriteString("null")
		return
	case len(vs) == 0:
		o.WriteString("[]")
		return
	}
	o.WriteByte('[')
	line := "\n" + indent + "  "
	for i, v := range vs {
		if i > 0 {
			o.WriteByte(',')
		}
		o.WriteString(line)
		value(v)
	}
	o.WriteString("\n" + indent + "]")
}

// object writes m as encoding/json indents a map whose line starts at
// indent: keys in order, a member a line.
func object[V any](o *jsonOut, m map[string]V, indent string, value func(V)) {
	switch {
	case m == nil:
		o.WriteString("null")
		return
	case len(m) == 0:
		o.WriteString("{}")
		return
	}
	o.WriteByte('{')
	line := "\n" + indent + "  "
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			o.WriteByte(',')
		}
		o.WriteString(line)
		o.string(k)
		o.WriteString(": ")
		value(m[k])
	}
	o.WriteString("\n" + indent + "}")
}
