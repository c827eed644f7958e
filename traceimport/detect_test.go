package traceimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestDetectKeys: the keys of the first record are found past values of
// every kind (strings with escaped quotes and backslashes, nested objects
// and arrays, numbers, literals) and white space; text that is not JSON is
// no format.
func TestDetectKeys(t *testing.T) {
	long := strings.Repeat(`x\"\\`, 40_000) // past a buffer, escapes across its edges
	for _, c := range []struct {
		data string
		want Format
	}{
		{`{"a":"` + long + `","b":{"c":[1,{"d":"}"}],"e":"]"},"f":-1.5e3,"g":true,"h":null,"run_type":"llm"}`, LangSmith},
		{"{ \"a\" : [ ] ,\n\t\"traceId\" : \"t\" , \"type\" : \"SPAN\" }", Langfuse},
		{`{"a":"\\","resourceSpans":[]}`, OTLP},
		{`{"a":"\\\"","resourceSpans":[]}`, OTLP},
		{`{"a":"\"resourceSpans\":","b":1}`, ""},
		{`{"id":"r","data":[{"run_type":"x"}]}`, ""},                  // a run whose field is called data
		{`{"runs":[{"x":"` + long + `","run_type":"x"}]}`, LangSmith}, // LangSmith's envelope
		{`{"data":{"run_type":"x"}}`, ""},
		{`[{"a":[[[]]],"resource_spans":1}]`, OTLP},
		{`[1,{"run_type":"x"}]`, ""},
		{`{"a" 1,"run_type":"x"}`, ""},
		{`{"a":1 "run_type":"x"}`, ""},
		{`{"a":"never closed, "run_type":"x"}`, ""},
		{`{"a":}"run_type":"x"}`, ""},
		{`{"run\u005ftype":"x"}`, LangSmith},
		{`{"a\"b\\":1,"run_type":"x"}`, LangSmith},
		{`{"` + strings.Repeat("k", maxKey+1) + `":1,"run_type":"x"}`, ""},
	} {
		if got := detectJSON(bufio.NewReader(strings.NewReader(c.data))); got != c.want {
			t.Errorf("detectJSON(%.60s) = %q, want %q", c.data, got, c.want)
		}
	}
}

// decodedFormat is what Detect answers for JSON, worked out by decoding the
// first record with encoding/json; ok is false when that record is not
// valid JSON.
func decodedFormat(data []byte) (f Format, ok bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	var first json.RawMessage
	if d.Decode(&first) != nil {
		return "", false
	}
	keys := func(raw []byte, each func(key string, value json.RawMessage) bool) {
		d := json.NewDecoder(bytes.NewReader(raw))
		if tok, _ := d.Token(); tok != json.Delim('{') {
			return
		}
		for d.More() {
			tok, _ := d.Token()
			var v json.RawMessage
			d.Decode(&v)
			if !each(tok.(string), v) {
				return
			}
		}
	}
	classified := func(raw []byte) (f Format) {
		seen := map[string]bool{}
		keys(raw, func(key string, _ json.RawMessage) bool {
			seen[key] = true
			f = classify(seen)
			return f == ""
		})
		return f
	}
	var list []json.RawMessage
	if json.Unmarshal(first, &list) == nil {
		if len(list) == 0 {
			return "", true
		}
		return classified(list[0]), true
	}
	seen := map[string]bool{}
	keys(first, func(key string, v json.RawMessage) bool {
		if (key == "data" || key == "runs") && !seen["id"] {
			if json.Unmarshal(v, &list) == nil && len(list) > 0 {
				f = classified(list[0])
			}
			return false
		}
		seen[key] = true
		f = classify(seen)
		return f == ""
	})
	return f, true
}

// FuzzDetect: where the first record is valid JSON, Detect gives what
// decoding it whole gives.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{`{"resourceSpans":[]}`, `[{"id":"r1","run_type":"chain"}]`, `{"data":[{"id":"o1","traceId":"t","type":"SPAN"}]}`,
		`{"id":"x","runs":[{"run_type":"llm"}]}`, `{"a":"\\\"","b":[{"c":"]"}],"traceId":1,"type":2}` + "\n{}", `{"runs":{}}`, `{"run\u005ftype":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, ok := decodedFormat(data)
		got, err := Detect(input.FromBytes("f", data))
		if ok && data[0] != 0x0a && (err != nil || got != want) { // a first newline may start a protobuf body
			t.Fatalf("Detect(%q) = %q, %v; decoding gives %q", data, got, err, want)
		}
	})
}
