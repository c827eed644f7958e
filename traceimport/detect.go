package traceimport

import (
	"bufio"
	"bytes"
	"encoding/json"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/ragstat/ragstat/input"
)

// Detect tells the format of a file from its content: OTLP/JSON (an object
// with resourceSpans), an OTLP protobuf body, LangSmith runs (objects with
// run_type) or Langfuse observations (objects with traceId and type), as
// JSON Lines, a JSON array or the API's {"data": [...]} envelope. It
// returns "" for anything else, such as ragstat's own traces or runs.
func Detect(f *input.File) (Format, error) {
	peek, err := f.Head(1 << 16)
	if err != nil {
		return "", err
	}
	if t := bytes.TrimLeft(peek, " \t\r\n\ufeff"); peek[0] != 0x0a && len(t) > 0 && t[0] != '{' && t[0] != '[' {
		return "", nil // neither JSON nor a protobuf body: no need to read a first line that may be huge
	}
	line, first, err := leading(f)
	if err != nil {
		return "", err
	}
	if len(line) > 0 && line[0] == 0x0a {
		if data, err := readAll(f); err == nil {
			if td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(data); err == nil && td.SpanCount() > 0 {
				return OTLP, nil
			}
		}
	}
	if first != '{' && first != '[' {
		return "", nil
	}
	rc, err := f.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	return detectJSON(json.NewDecoder(bufio.NewReader(rc))), nil
}

// detectJSON reads the first record, key by key, only as far as needed:
// the first line's object, the first element of an array, or the first
// element of "data" or "runs".
func detectJSON(d *json.Decoder) Format {
	tok, err := d.Token()
	if err != nil {
		return ""
	}
	if tok == json.Delim('[') {
		var rec map[string]json.RawMessage
		if !d.More() || d.Decode(&rec) != nil {
			return ""
		}
		return classify(rec)
	}
	if tok != json.Delim('{') {
		return ""
	}
	rec := map[string]json.RawMessage{}
	for d.More() {
		tok, err := d.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return ""
		}
		if key == "data" || key == "runs" {
			if _, isID := rec["id"]; !isID {
				if tok, err := d.Token(); err != nil || tok != json.Delim('[') || !d.More() {
					return ""
				}
				var first map[string]json.RawMessage
				if d.Decode(&first) != nil {
					return ""
				}
				return classify(first)
			}
		}
		var value json.RawMessage
		if d.Decode(&value) != nil {
			return ""
		}
		rec[key] = value
		if f := classify(rec); f != "" {
			return f
		}
	}
	return ""
}

// classify tells a record's format by its keys.
func classify(rec map[string]json.RawMessage) Format {
	switch {
	case rec["resourceSpans"] != nil || rec["resource_spans"] != nil:
		return OTLP
	case rec["run_type"] != nil:
		return LangSmith
	case rec["traceId"] != nil && rec["type"] != nil:
		return Langfuse
	}
	return ""
}
