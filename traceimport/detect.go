package traceimport

import (
	"bytes"
	"encoding/json"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/trace"
)

// Detect tells the format of a file from its content: OTLP/JSON (an object
// with resourceSpans), an OTLP protobuf body, LangSmith runs (objects with
// run_type) or Langfuse observations (objects with traceId and type), as
// JSON Lines, a JSON array or the API's {"data": [...]} envelope. It
// returns "" for anything else, such as ragstat's own traces or runs.
func Detect(f *input.File) (Format, error) {
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
	head, err := f.Head(1 << 20)
	if err != nil {
		return "", err
	}
	return detectJSON(bytes.TrimLeft(head, " \t\r\n\ufeff")), nil
}

// detectJSON looks at the first record: the first line's object, the
// first element of an array, or the first element of "data" or "runs".
func detectJSON(head []byte) Format {
	d := json.NewDecoder(bytes.NewReader(head))
	var rec map[string]json.RawMessage
	if head[0] == '[' {
		if _, err := d.Token(); err != nil || !d.More() || d.Decode(&rec) != nil {
			return ""
		}
	} else if json.Unmarshal(input.FirstLine(head), &rec) != nil && d.Decode(&rec) != nil {
		return ""
	}
	if rec["id"] == nil {
		for _, key := range []string{"data", "runs"} {
			var list []map[string]json.RawMessage
			if inner, ok := rec[key]; ok && json.Unmarshal(inner, &list) == nil && len(list) > 0 {
				rec = list[0]
			}
		}
	}
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

// ScanFile imports one file in the format Detect finds, calling fn with
// each trace: for commands that take trace files of any format. A file in
// no format known here is an error.
func ScanFile(f *input.File, m Mapping, fn func(*trace.Trace) error) (*Manifest, error) {
	format, err := Detect(f)
	if err != nil {
		return nil, err
	}
	if format == "" {
		return nil, &diag.Error{File: f.Name, Msg: "not OTLP, LangSmith or Langfuse traces"}
	}
	return Import(format, []*input.File{f}, m, fn)
}
