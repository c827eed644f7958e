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
	out := bufio.NewWriterSize(w, 64<<10)
	var num []byte
	str := func(s string) {
		num = jsonenc.AppendString(num[:0], s)
		out.Write(num)
	}
	strs := func(ss []string, indent string) {
		if ss == nil {
			out.WriteString("null")
			return
		}
		if len(ss) == 0 {
			out.WriteString("[]")
			return
		}
		out.WriteString("[")
		for i, s := range ss {
			if i > 0 {
				out.WriteByte(',')
			}
			out.WriteString("\n" + indent + "  ")
			str(s)
		}
		out.WriteString("\n" + indent + "]")
	}
	out.Write(doc[:q+len(queries)-len("null")])
	strs(r.Queries, "  ")
	if len(r.Text) > 0 {
		out.WriteString(",\n  \"text\": ")
		strs(r.Text, "  ")
	}
	out.Write(doc[q+len(queries) : v+len(values)-len("null")])
	writeValues(out, r.Values, str, &num)
	out.Write(doc[v+len(values):])
	out.WriteByte('\n')
	return out.Flush()
}

// writeValues writes system -> metric -> per-query values, keys in order
// as encoding/json orders a map's.
func writeValues(out *bufio.Writer, values map[string]map[string][]float64, str func(string), num *[]byte) {
	if values == nil {
		out.WriteString("null")
		return
	}
	if len(values) == 0 {
		out.WriteString("{}")
		return
	}
	out.WriteString("{")
	for i, sys := range slices.Sorted(maps.Keys(values)) {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n    ")
		str(sys)
		out.WriteString(": ")
		byMetric := values[sys]
		switch {
		case byMetric == nil:
			out.WriteString("null")
			continue
		case len(byMetric) == 0:
			out.WriteString("{}")
			continue
		}
		out.WriteString("{")
		for j, m := range slices.Sorted(maps.Keys(byMetric)) {
			if j > 0 {
				out.WriteByte(',')
			}
			out.WriteString("\n      ")
			str(m)
			out.WriteString(": ")
			vs := byMetric[m]
			switch {
			case vs == nil:
				out.WriteString("null")
				continue
			case len(vs) == 0:
				out.WriteString("[]")
				continue
			}
			out.WriteString("[")
			for k, x := range vs {
				if k > 0 {
					out.WriteByte(',')
				}
				out.WriteString("\n        ")
				*num = jsonenc.AppendFloat((*num)[:0], x)
				out.Write(*num)
			}
			out.WriteString("\n      ]")
		}
		out.WriteString("\n    }")
	}
	out.WriteString("\n  }")
}
