package collect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/protobuf/encoding/protowire"
)

// itemCost is what one message of a request (a span, an attribute, an
// event, a value) takes once decoded, in bytes: measured with pdata, an
// empty attribute takes about 240 bytes, an empty event about 100.
const itemCost = 256

// maxNesting is the deepest nesting of messages (or JSON objects and
// arrays) a request may have.
const maxNesting = 64

// counts is what a request holds, counted on its wire form before it is
// decoded.
type counts struct {
	spans int
	items int // every message, spans included (an upper bound for JSON)
}

// cost is about how many bytes decoding and re-encoding a body of n bytes
// holding c takes: the decoded messages and the OTLP/JSON written.
func (c counts) cost(n int) int64 { return int64(c.items)*itemCost + 2*int64(n) }

// errOverCount stops a count that went past a limit.
var errOverCount = errors.New("over the limit")

// message kinds of an OTLP ExportTraceServiceRequest, for the protobuf
// walk.
type kind uint8

const (
	kRequest kind = iota
	kResourceSpans
	kResource
	kScopeSpans
	kScope
	kSpan
	kEvent
	kLink
	kKeyValue
	kAnyValue
	kArray
	kKVList
	kLeaf // a message with no message fields: Status, EntityRef
)

// fields maps each kind's message fields (by number) to their kind; the
// others are scalars, strings or bytes, and fields pdata does not read.
var fields = [...]map[protowire.Number]kind{
	kRequest:       {1: kResourceSpans},
	kResourceSpans: {1: kResource, 2: kScopeSpans, 1000: kScopeSpans},
	kResource:      {1: kKeyValue, 3: kLeaf},
	kScopeSpans:    {1: kScope, 2: kSpan},
	kScope:         {3: kKeyValue},
	kSpan:          {9: kKeyValue, 11: kEvent, 13: kLink, 15: kLeaf},
	kEvent:         {3: kKeyValue},
	kLink:          {4: kKeyValue},
	kKeyValue:      {2: kAnyValue},
	kAnyValue:      {5: kArray, 6: kKVList},
	kArray:         {1: kAnyValue},
	kKVList:        {1: kKeyValue},
	kLeaf:          nil,
}

// countProto counts the spans and messages of a protobuf
// ExportTraceServiceRequest without decoding it, stopping with
// errOverCount as soon as there are more than maxSpans spans or maxItems
// messages.
func countProto(b []byte, maxSpans, maxItems int) (counts, error) {
	var c counts
	err := c.walkProto(b, kRequest, 0, maxSpans, maxItems)
	return c, err
}

func (c *counts) walkProto(b []byte, k kind, depth, maxSpans, maxItems int) error {
	if depth > maxNesting {
		return fmt.Errorf("messages nested deeper than %d", maxNesting)
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		child, isMsg := fields[k][num]
		if typ == protowire.StartGroupType {
			if n = skipGroup(b); n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		if typ != protowire.BytesType || !isMsg {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if c.items++; c.items > maxItems {
			return errOverCount
		}
		if child == kSpan {
			if c.spans++; c.spans > maxSpans {
				return errOverCount
			}
		}
		if err := c.walkProto(v, child, depth+1, maxSpans, maxItems); err != nil {
			return err
		}
	}
	return nil
}

// skipGroup skips a group as pdata does (a field of an old protobuf
// form, which OTLP never uses): up to the first field that is not a
// group's start or end, or the end of the outermost group. It returns the
// bytes skipped, or a protowire error code.
func skipGroup(b []byte) int {
	depth, pos := 1, 0
	for pos < len(b) {
		num, typ, n := protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return n
		}
		pos += n
		switch typ {
		case protowire.StartGroupType:
			depth++
			continue
		case protowire.EndGroupType:
			if depth--; depth == 0 {
				return pos
			}
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, b[pos:]); n < 0 {
			return n
		}
		return pos + n
	}
	return -1 // io.ErrUnexpectedEOF
}

// countJSON counts the spans and objects of an OTLP/JSON
// ExportTraceServiceRequest without decoding it, as countProto does.
func countJSON(b []byte, maxSpans, maxItems int) (counts, error) {
	var c counts
	// pdata takes repeated names and invalid UTF-8; so does the count.
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return c, err
		}
		switch tok.Kind() {
		case '[':
			if dec.StackDepth() > maxNesting {
				return c, fmt.Errorf("objects and arrays nested deeper than %d", maxNesting)
			}
		case '{':
			if dec.StackDepth() > maxNesting {
				return c, fmt.Errorf("objects and arrays nested deeper than %d", maxNesting)
			}
			if c.items++; c.items > maxItems {
				return c, errOverCount
			}
			if dec.StackDepth() == 7 && isSpanPointer(string(dec.StackPointer())) {
				if c.spans++; c.spans > maxSpans {
					return c, errOverCount
				}
			}
		}
	}
}

// isSpanPointer reports whether a JSON pointer names a span:
// /resourceSpans/N/scopeSpans/N/spans/N, with the other key spellings
// pdata reads.
func isSpanPointer(p string) bool {
	seg := strings.Split(p, "/")
	if len(seg) != 7 || seg[0] != "" || seg[5] != "spans" {
		return false
	}
	switch seg[1] {
	case "resourceSpans", "resource_spans":
	default:
		return false
	}
	switch seg[3] {
	case "scopeSpans", "scope_spans", "deprecatedScopeSpans", "deprecated_scope_spans":
		return true
	}
	return false
}
