package traceimport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// role is what a span does in a RAG pipeline.
type role uint8

const (
	roleUnknown   role = iota // a kind no convention here names
	roleOther                 // a known kind that maps to nothing (chain, tool, embedding, ...)
	roleRetriever             // its documents are a stage
	roleGenerator             // its input is the context, its output the answer
)

// span is one span, run or observation, reduced to what the mapping reads.
type span struct {
	trace, id, parent string
	name              string
	kind              string // the kind as the source wrote it, for reports
	role              role
	start, end        int64 // unix nanoseconds; 0: unknown
	place             place

	conv Convention // the convention it was read under; "" for none or a documents rule
	user bool       // read by a documents rule

	docs    []document
	hasDocs bool // the span recorded its documents (possibly none)
	// inputDocs are a reranker's input documents, when it records them.
	inputDocs    []document
	hasInputDocs bool
	query        string // a retrieval's query text, when recorded
	source       string // a retrieval's data source id
	topK         *int64 // how many documents a retrieval asked for

	attrKeys []attrKey // a span mapped to nothing: its attribute keys, for the report

	prompt    string // generator: the exact input text
	hasPrompt bool
	answer    string
	hasAnswer bool
	model     string
	tokens    tokens

	keys []string // the values of rules.keys; "" where absent
}

// tokens are the token counts a generator span reported.
type tokens struct {
	Prompt     *int64 `json:"prompt,omitempty"`
	Completion *int64 `json:"completion,omitempty"`
}

// place is where a span was read.
type place struct {
	file string
	line int // 0: the file as a whole (a protobuf body)
}

func (p place) String() string {
	if p.line > 0 {
		return fmt.Sprintf("%s:%d", p.file, p.line)
	}
	return p.file
}

// document is one retrieved document.
type document struct {
	id      string
	idFrom  string // "document", "metadata" or "" (no id: content hash)
	score   *float64
	text    string
	hasText bool
	meta    corpus.Meta
	badMeta string // what was wrong with the metadata, if anything
}

// rawDocument is a document as a reader found it, before the mapping's
// choices are applied.
type rawDocument struct {
	id       any // string or number; nil: none
	content  *string
	score    any // number or numeric string; nil: none
	metadata map[string]any
}

// relevanceScore is the metadata key where LangChain's rerankers (and
// Python's, as relevance_score) put a document's score: the score of a
// document that has none of its own, nor the metadata key given.
const relevanceScore = "relevanceScore"

// document applies the id, score and metadata rules to a raw document.
func (r *rules) document(raw rawDocument) document {
	d := document{}
	if raw.content != nil {
		d.text, d.hasText = *raw.content, true
	}
	if id, ok := scalar(raw.id); ok && strings.TrimSpace(id) != "" {
		d.id, d.idFrom = id, "document"
	} else if r.itemID != "" {
		if id, ok := scalar(raw.metadata[r.itemID]); ok && strings.TrimSpace(id) != "" {
			d.id, d.idFrom = id, "metadata"
		}
	}
	if d.id == "" && d.hasText {
		sum := sha256.Sum256([]byte(d.text))
		d.id = "sha256:" + hex.EncodeToString(sum[:8])
	}
	score := raw.score
	if score == nil && r.itemScore != "" {
		score = raw.metadata[r.itemScore]
	}
	if score == nil {
		score = firstOf(raw.metadata[relevanceScore], raw.metadata["relevance_score"])
	}
	if score != nil {
		if f, ok := number(score); ok {
			d.score = &f
		} else {
			d.badMeta = fmt.Sprintf("score %v is not a finite number", score)
		}
	}
	d.meta, d.badMeta = itemMeta(raw.metadata, d.badMeta)
	return d
}

// itemMeta takes doc, revision, scope, valid_from and valid_to from a
// document's metadata.
func itemMeta(md map[string]any, bad string) (corpus.Meta, string) {
	var m corpus.Meta
	str := func(key string, to *string) {
		if v, ok := md[key]; ok {
			if s, ok := scalar(v); ok {
				*to = s
			} else if bad == "" {
				bad = fmt.Sprintf("metadata %q is not a string", key)
			}
		}
	}
	str("doc", &m.Doc)
	str("revision", &m.Revision)
	str("scope", &m.Scope)
	date := func(key string, to *jsonin.Date) {
		v, ok := md[key]
		if !ok {
			return
		}
		b, _ := json.Marshal(v)
		if err := to.UnmarshalJSON(b); err != nil && bad == "" {
			bad = fmt.Sprintf("metadata %q: %v", key, err)
		}
	}
	date("valid_from", &m.ValidFrom)
	date("valid_to", &m.ValidTo)
	return m, bad
}

// scalar writes a string or a number as a string.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// number reads a finite number, or a string holding one.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case json.Number:
		g, err := x.Float64()
		if err != nil {
			return 0, false
		}
		f = g
	case string:
		g, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, false
		}
		f = g
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// integer reads a whole number of tokens.
func integer(v any) *int64 {
	f, ok := number(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return nil
	}
	n := int64(f)
	return &n
}

// objectJSON parses a JSON object held in a string (OpenInference's
// metadata attributes); anything else is nil.
func objectJSON(s string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

// lookup finds a dotted key in a JSON value: a key of the object as a
// whole first (OpenInference writes "session.id" flat), then path by path.
func lookup(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	head, rest, ok := strings.Cut(key, ".")
	if !ok {
		return nil, false
	}
	inner, isMap := m[head].(map[string]any)
	if !isMap {
		return nil, false
	}
	return lookup(inner, rest)
}

// finder looks a name up in one place of a record.
type finder func(name string) (any, bool)

// inMap is a finder over a JSON object; a nil map holds nothing.
func inMap(m map[string]any) finder {
	return func(name string) (any, bool) { return lookup(m, name) }
}

// keyValues resolves every key of the rules against a record's metadata,
// its attributes or fields, and its resource: metadata.NAME, resource.NAME
// or a plain name. Values are trimmed; "" means absent.
func (r *rules) keyValues(metadata, fields, resource finder) []string {
	out := make([]string, len(r.keys))
	for i, key := range r.keys {
		from, name := fields, key
		if n, ok := strings.CutPrefix(key, "metadata."); ok {
			from, name = metadata, n
		} else if n, ok := strings.CutPrefix(key, "resource."); ok {
			from, name = resource, n
		}
		if v, ok := from(name); ok {
			s, _ := scalar(v)
			out[i] = strings.TrimSpace(s)
		}
	}
	return out
}

// messageText is the text of a chat message, a list of messages or a
// prompt in any of the shapes the sources write: a string; a list (texts
// joined by newlines); {"content": string or parts}; parts
// {"type":"text","text"|"content": ...}; LangChain's serialised messages
// {"kwargs":{"content":...}} or {"data":{"content":...}}; {"messages":
// [...]}; {"parts": [...]}. Parts that are not text (images, audio, tool
// calls) are left out.
func messageText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []any:
		var parts []string
		for _, e := range x {
			if s, ok := messageText(e); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n"), len(parts) > 0
	case map[string]any:
		if t, ok := x["type"].(string); ok && isMedia(t) {
			return "", false
		}
		for _, key := range []string{"content", "text", "parts", "messages", "kwargs", "data", "message", "prompt"} {
			if s, ok := messageText(x[key]); ok {
				return s, true
			}
		}
	}
	return "", false
}

// isMedia tells a part that holds no text (an image, audio, a tool call).
func isMedia(t string) bool {
	switch t {
	case "image", "image_url", "audio", "input_audio", "file", "blob", "uri", "tool_call", "tool_call_response":
		return true
	}
	return false
}
