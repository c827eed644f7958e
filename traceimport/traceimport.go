// Package traceimport reads the traces RAG pipelines already emit and maps
// them into ragstat traces (package trace), one per query and system:
// OpenTelemetry spans (OTLP/JSON lines as the Collector's file exporter
// writes them, one OTLP/JSON document, or OTLP protobuf bodies; gzip
// accepted), each span under the convention it carries (OpenInference,
// OpenLLMetry, the Langfuse SDK's, OpenTelemetry GenAI; see Convention)
// or a documents rule, LangSmith run exports and Langfuse observation
// exports.
//
// Every retrieval span becomes a stage, in pipeline order (sibling calls
// of one name, an agent's searches, are the calls of one search step);
// the generator's
// input is the exact context text, in which the items of the last retrieval
// stage are found packed whole, truncated or dropped; its output is the
// answer, with citations taken by a pattern. Every mapping choice is
// recorded in the Manifest, and what cannot be mapped (a span kind it does
// not know, a retrieval span without documents, documents without ids, a
// trace without a generator, ...) is counted there with the span names, or
// is an error under Mapping.Strict: nothing is dropped silently. An import
// that writes no trace, or no retrieval list, is a NothingMappedError.
//
// Spans of one trace arrive over many lines or requests. A trace stays open
// until its root span has arrived, every parent its spans name has arrived,
// and Mapping.CloseAfter further records have been read; then it is mapped
// and handed on, so memory is bounded by the traces still open, not by the
// file. A span that arrives for a trace already closed is reported, never
// merged or dropped silently. See docs/traces.md.
package traceimport

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/trace"
)

// Format is a trace format ragstat imports.
type Format string

// The formats.
const (
	OTLP      Format = "otlp"      // OpenTelemetry: OTLP/JSON or protobuf
	LangSmith Format = "langsmith" // LangSmith run exports (JSON Lines or a JSON array)
	Langfuse  Format = "langfuse"  // Langfuse observation exports (JSON Lines, a JSON array or {"data":[...]})
)

// formats lists every format, in the order of their names.
var formats = []Format{Langfuse, LangSmith, OTLP}

// ParseFormat reads a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range formats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown trace format %q: use otlp, langsmith or langfuse", s)
}

// EndOfInput, as Mapping.CloseAfter, keeps every trace open until the whole
// input has been read.
const EndOfInput = -1

// defaultCloseAfter is how many records an OTLP trace stays open after it
// is complete, for spans of other processes that are exported late.
const defaultCloseAfter = 1000

// DefaultCitation is the citation pattern used when none is given: an id in
// square brackets, as "[policy#2]".
const DefaultCitation = `\[([^\]\s]+)\]`

// defaultQueryID lists the keys tried, in order, for a trace's query id
// when Mapping.QueryID is empty.
var defaultQueryID = []string{"metadata.query_id", "session.id", "gen_ai.conversation.id"}

// conversationKeys are the attributes that make traces turns of one
// conversation: traces sharing the value are its turns, numbered in the
// order they close.
var conversationKeys = []string{"session.id", "gen_ai.conversation.id"}

// defaultSystemFrom lists the keys tried for the system name when neither
// Mapping.System nor Mapping.SystemFrom is given; failing them, the input
// file's base name is the system.
var defaultSystemFrom = []string{"metadata.system", "resource.service.name"}

// Mapping says how spans become ragstat traces. The zero Mapping is the
// default mapping.
type Mapping struct {
	// QueryID is the key holding the query id: an attribute or field name
	// (session.id), metadata.NAME (a key of the span's metadata: the
	// OpenInference "metadata" attribute, LangSmith's extra.metadata,
	// Langfuse's metadata), resource.NAME (OTLP) or reference_example_id
	// (LangSmith). Empty: DefaultQueryID, then the trace id with a problem
	// reported.
	QueryID string
	// System names the system; SystemFrom is a key, as QueryID, holding it.
	// At most one may be given; neither: DefaultSystemFrom.
	System, SystemFrom string
	// Stages renames stages by span name; a name "-" leaves the span out.
	Stages map[string]string
	// ItemID and ItemScore are metadata.KEY: the document metadata key that
	// holds an item's id when the document has none, and its score.
	ItemID, ItemScore string
	// Citation is the regular expression that finds cited ids in the answer
	// (its first group, or the whole match); empty: DefaultCitation.
	Citation string
	// Abstain is the regular expression that, matching the answer, says the
	// generator abstained; empty: abstention is not recorded.
	Abstain string
	// Corpus gives the text of items whose spans carry none (may be nil).
	Corpus *corpus.Corpus
	// Strict makes every problem an error.
	Strict bool
	// CloseAfter is how many further records a complete trace stays open;
	// 0: DefaultCloseAfter for OTLP and EndOfInput for the exports, whose
	// order carries no promise.
	CloseAfter int
	// Convention, when set, reads every OTLP span under that convention
	// only; "": each span under the convention whose marker it carries.
	Convention Convention
	// Documents maps the retrieval lists of spans no convention reads.
	Documents []DocumentsRule
	// Names writes an option's name in the manifest, as the caller names
	// it (nil: the option's own name, "system").
	Names func(option string) string
}

// name is option as m's caller names it.
func (m Mapping) name(option string) string {
	if m.Names == nil {
		return option
	}
	return m.Names(option)
}

// rules is a Mapping checked and compiled.
type rules struct {
	Mapping
	queryKeys  []string
	systemKeys []string
	keys       []string // every key a span is asked for: queryKeys then systemKeys
	itemID     string   // metadata key, or ""
	itemScore  string
	citation   *regexp.Regexp
	abstain    *regexp.Regexp
	closeAfter int
	docRules   []documentsRule
}

func (m Mapping) compile(f Format) (*rules, error) {
	r := &rules{Mapping: m}
	r.queryKeys = defaultQueryID
	if m.QueryID != "" {
		if err := checkKey("query id", m.QueryID); err != nil {
			return nil, err
		}
		r.queryKeys = []string{m.QueryID}
	}
	switch {
	case m.System != "" && m.SystemFrom != "":
		return nil, fmt.Errorf("give the system's name or the key that holds it, not both")
	case m.System != "":
		if strings.TrimSpace(m.System) == "" {
			return nil, fmt.Errorf("the system name is blank")
		}
	case m.SystemFrom != "":
		if err := checkKey("system", m.SystemFrom); err != nil {
			return nil, err
		}
		r.systemKeys = []string{m.SystemFrom}
	default:
		r.systemKeys = defaultSystemFrom
	}
	r.keys = append(append(append([]string{}, r.queryKeys...), r.systemKeys...), conversationKeys...)
	var err error
	if r.itemID, err = metadataKey("item id", m.ItemID); err != nil {
		return nil, err
	}
	if r.itemScore, err = metadataKey("item score", m.ItemScore); err != nil {
		return nil, err
	}
	for span, name := range m.Stages {
		if strings.TrimSpace(span) == "" || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("stage rename %q=%q: give SPAN=NAME or SPAN=-", span, name)
		}
		if name == trace.ContextStage {
			return nil, fmt.Errorf("stage rename %s=%s: %q is the packed context, made from the generator span", span, name, trace.ContextStage)
		}
	}
	if m.Convention != "" {
		if _, err := ParseConvention(string(m.Convention)); err != nil {
			return nil, &diag.OptionError{Option: "convention", Err: err}
		}
		if f != OTLP {
			return nil, &diag.OptionError{Option: "convention", Value: string(m.Convention), Msg: "applies to OTLP spans only"}
		}
	}
	if r.docRules, err = compileDocuments(m.Documents); err != nil {
		return nil, err
	}
	if r.citation, r.abstain, err = m.Patterns(); err != nil {
		return nil, err
	}
	switch {
	case m.CloseAfter < EndOfInput:
		return nil, fmt.Errorf("close-after %d: give a number of records, or %d for the end of input", m.CloseAfter, EndOfInput)
	case m.CloseAfter != 0:
		r.closeAfter = m.CloseAfter
	case f == OTLP:
		r.closeAfter = defaultCloseAfter
	default:
		r.closeAfter = EndOfInput
	}
	return r, nil
}

// Patterns compiles the citation pattern (empty: DefaultCitation) and the
// abstain pattern (nil when empty).
func (m Mapping) Patterns() (citation, abstain *regexp.Regexp, err error) {
	cite := cmp.Or(m.Citation, DefaultCitation)
	if citation, err = regexp.Compile(cite); err != nil {
		return nil, nil, &diag.OptionError{Option: "citation_pattern", Err: err}
	}
	if m.Abstain != "" {
		if abstain, err = regexp.Compile(m.Abstain); err != nil {
			return nil, nil, &diag.OptionError{Option: "abstain_pattern", Err: err}
		}
	}
	return citation, abstain, nil
}

func checkKey(what, key string) error {
	if strings.TrimSpace(key) == "" || key != strings.TrimSpace(key) {
		return fmt.Errorf("%s key %q: give an attribute name, metadata.NAME or resource.NAME", what, key)
	}
	for _, p := range []string{"metadata.", "resource."} {
		if key == strings.TrimSuffix(p, ".") || key == p {
			return fmt.Errorf("%s key %q: name the key after %q", what, key, p)
		}
	}
	return nil
}

func metadataKey(what, key string) (string, error) {
	if key == "" {
		return "", nil
	}
	name, ok := strings.CutPrefix(key, "metadata.")
	if !ok || name == "" {
		return "", fmt.Errorf("%s %q: give metadata.KEY, a key of the document's metadata", what, key)
	}
	return name, nil
}
