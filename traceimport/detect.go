package traceimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"

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
	line, first, _, err := leading(f, 1<<16)
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
	return detectJSON(bufio.NewReaderSize(rc, 1<<16)), nil
}

// detectJSON reads the keys of the first record only as far as needed:
// the first line's object, the first element of an array, or the first
// element of "data" or "runs". Values are skipped byte by byte, never
// held, so a first record of any size costs constant memory.
func detectJSON(br *bufio.Reader) Format {
	c, ok := nextByte(br)
	if c == '[' {
		return firstElement(br)
	}
	if !ok || c != '{' {
		return ""
	}
	return classifyObject(br, func(key string, keys map[string]bool) (Format, bool) {
		if (key == "data" || key == "runs") && !keys["id"] { // an envelope
			if c, _ := nextByte(br); c != '[' {
				return "", true
			}
			return firstElement(br), true
		}
		return "", false
	})
}

// firstElement classifies the first element of the array whose '[' br has
// just read, an object.
func firstElement(br *bufio.Reader) Format {
	if c, _ := nextByte(br); c != '{' {
		return ""
	}
	return classifyObject(br, func(string, map[string]bool) (Format, bool) { return "", false })
}

// classifyObject reads the keys of the object whose '{' br has just read
// until they tell its format. Before each key is counted, decide may take
// the answer instead (and read the key's value).
func classifyObject(br *bufio.Reader, decide func(key string, keys map[string]bool) (Format, bool)) Format {
	keys := map[string]bool{}
	for key := range objectKeys(br) {
		if f, ok := decide(key, keys); ok {
			return f
		}
		keys[key] = true
		if f := classify(keys); f != "" {
			return f
		}
	}
	return ""
}

// maxKey is the longest key detectJSON reads; a longer one ends detection.
const maxKey = 1 << 10

// objectKeys yields the keys of the object whose '{' br has just read.
// After each key it stands before the key's value: the loop body may read
// the value; if it does not, the value is skipped before the next key. It
// stops at the object's end, or at anything that is not JSON.
func objectKeys(br *bufio.Reader) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for first := true; ; first = false {
			c, ok := nextByte(br)
			if !ok || c == '}' {
				return
			}
			if !first {
				if c != ',' {
					return
				}
				if c, ok = nextByte(br); !ok {
					return
				}
			}
			if c != '"' {
				return
			}
			key, ok := readKey(br)
			if !ok {
				return
			}
			if c, _ := nextByte(br); c != ':' {
				return
			}
			if !yield(key) || skipValue(br) != nil {
				return
			}
		}
	}
}

// readKey reads the rest of a key whose opening quote has been read, and
// unescapes it; false for a key longer than maxKey bytes, or not JSON.
func readKey(br *bufio.Reader) (string, bool) {
	raw := []byte{'"'}
	for {
		chunk, err := br.ReadSlice('"')
		raw = append(raw, chunk...)
		if err != nil || len(raw) > maxKey {
			return "", false
		}
		body := raw[:len(raw)-1]
		if run := len(body) - len(bytes.TrimRight(body, "\\")); run%2 == 0 {
			break
		}
	}
	var key string
	if json.Unmarshal(raw, &key) != nil {
		return "", false
	}
	return key, true
}

var errNotJSON = errors.New("not JSON")

// skipValue reads past one JSON value, holding none of it.
func skipValue(br *bufio.Reader) error {
	depth := 0
	for {
		c, ok := nextByte(br)
		if !ok {
			return errNotJSON
		}
		switch c {
		case '"':
			if err := skipString(br); err != nil {
				return err
			}
		case '{', '[':
			depth++
			continue
		case '}', ']':
			depth--
		case ',', ':':
			if depth == 0 {
				return errNotJSON
			}
			continue
		default: // a number, true, false or null: up to the next delimiter
			for {
				c, err := br.ReadByte()
				if err != nil {
					break
				}
				if bytes.IndexByte([]byte(",:{}[]\" \t\r\n"), c) >= 0 {
					br.UnreadByte()
					break
				}
			}
		}
		if depth <= 0 {
			if depth < 0 {
				return errNotJSON
			}
			return nil
		}
	}
}

// skipString reads past the rest of a string whose opening quote has been
// read, a buffer at a time: a quote ends it unless an odd run of
// backslashes comes before it.
func skipString(br *bufio.Reader) error {
	escaped := false // the bytes read so far end in an odd run of backslashes
	for {
		chunk, err := br.ReadSlice('"')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return errNotJSON
		}
		closing := err == nil
		body := chunk
		if closing {
			body = chunk[:len(chunk)-1]
		}
		if run := len(body) - len(bytes.TrimRight(body, "\\")); run == len(body) {
			escaped = escaped != (run%2 == 1)
		} else {
			escaped = run%2 == 1
		}
		if closing {
			if !escaped {
				return nil
			}
			escaped = false
		}
	}
}

// nextByte is the next byte that is not white space.
func nextByte(br *bufio.Reader) (byte, bool) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, false
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, true
		}
	}
}

// classify tells a record's format by its keys.
func classify(keys map[string]bool) Format {
	switch {
	case keys["resourceSpans"] || keys["resource_spans"]:
		return OTLP
	case keys["run_type"]:
		return LangSmith
	case keys["traceId"] && keys["type"]:
		return Langfuse
	}
	return ""
}
