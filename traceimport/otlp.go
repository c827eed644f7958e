package traceimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// readOTLP reads OTLP/JSON lines (one ExportTraceServiceRequest a line, as
// the Collector's file exporter writes them), one OTLP/JSON document, or
// one OTLP protobuf body.
func readOTLP(f *input.File, r *rules, each func(place, []*span) error) error {
	line, first, cut, err := leading(f, MaxRecord)
	if err != nil {
		return err
	}
	if len(line) > 0 && line[0] == 0x0a || first != '{' {
		err := r.otlpProto(f, each)
		if err == nil || first != '{' {
			return err
		}
	}
	if doc := wholeDocument(f, line, cut); doc != nil {
		return r.otlpJSON(f.Name, 0, doc, each)
	}
	return parallelLines(f, 0, func(n int, data []byte) ([]*span, error) {
		return r.otlpLine(place{f.Name, n}, data)
	}, func(n int, spans []*span) error { return each(place{f.Name, n}, spans) })
}

// otlpProto reads a file as one OTLP protobuf body.
func (r *rules) otlpProto(f *input.File, each func(place, []*span) error) error {
	data, err := readAll(f)
	if err != nil {
		return err
	}
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(data)
	if err == nil && td.SpanCount() == 0 {
		err = fmt.Errorf("no spans") // protobuf skips unknown fields: any bytes might pass for an empty body
	}
	if err != nil {
		return &diag.Error{File: f.Name, Msg: "not OTLP: neither JSON nor an OTLP protobuf body with spans: " + err.Error()}
	}
	at := place{file: f.Name}
	spans, err := r.otlpSpans(td, at)
	if err != nil {
		return err
	}
	return each(at, spans)
}

func (r *rules) otlpJSON(file string, line int, data []byte, each func(place, []*span) error) error {
	at := place{file, line}
	spans, err := r.otlpLine(at, data)
	if err != nil {
		return err
	}
	return each(at, spans)
}

// otlpLine reduces the spans of one OTLP/JSON request.
func (r *rules) otlpLine(at place, data []byte) ([]*span, error) {
	if err := jsonin.Unique(at.file, max(at.line, 1), data); err != nil {
		return nil, err
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
	if err != nil {
		return nil, &diag.Error{File: at.file, Line: at.line, Msg: "not an OTLP/JSON traces request: " + err.Error()}
	}
	// The decoder skips unknown fields: an object without resourceSpans
	// (another format's record) would pass for an empty request.
	if td.ResourceSpans().Len() == 0 && !bytes.Contains(data, []byte(`"resourceSpans"`)) && !bytes.Contains(data, []byte(`"resource_spans"`)) {
		return nil, &diag.Error{File: at.file, Line: at.line, Msg: "not an OTLP/JSON traces request: no resourceSpans",
			Hint: "is it a LangSmith or Langfuse export? import it as langsmith or langfuse"}
	}
	return r.otlpSpans(td, at)
}

// otlpSpans reduces every span of a request.
func (r *rules) otlpSpans(td ptrace.Traces, at place) ([]*span, error) {
	var out []*span
	for _, rs := range td.ResourceSpans().All() {
		res := rs.Resource().Attributes()
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				s, err := r.otlpSpan(sp, res, at)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// attr finds an attribute as a plain Go value.
func attr(m pcommon.Map) finder {
	return func(name string) (any, bool) {
		v, ok := m.Get(name)
		if !ok {
			return nil, false
		}
		return v.AsRaw(), true
	}
}

// indexed gathers OpenInference's flattened lists: PREFIX.N.REST.
type indexed map[int]map[string]pcommon.Value

func (x indexed) put(rest string, v pcommon.Value) {
	n, field, ok := strings.Cut(rest, ".")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 0 {
		return
	}
	if x[i] == nil {
		x[i] = map[string]pcommon.Value{}
	}
	x[i][field] = v
}

// each visits the entries in index order.
func (x indexed) each(fn func(map[string]pcommon.Value)) {
	for _, i := range slices.Sorted(maps.Keys(x)) {
		fn(x[i])
	}
}

// otlpSpan reduces one OTLP span under the convention it carries.
func (r *rules) otlpSpan(sp ptrace.Span, res pcommon.Map, at place) (*span, error) {
	if err := repeatedInAttributes(sp.Attributes(), at); err != nil {
		return nil, err
	}
	s := &span{trace: sp.TraceID().String(), id: sp.SpanID().String(), name: sp.Name(), place: at,
		start: int64(sp.StartTimestamp()), end: int64(sp.EndTimestamp())}
	if sp.TraceID().IsEmpty() || sp.SpanID().IsEmpty() {
		return nil, &diag.Error{File: at.file, Line: at.line, Msg: fmt.Sprintf("span %q has no trace id or span id", s.name)}
	}
	if !sp.ParentSpanID().IsEmpty() {
		s.parent = sp.ParentSpanID().String()
	}
	attrs := sp.Attributes()
	var metadata map[string]any
	if v, ok := attrs.Get("metadata"); ok {
		metadata = valueObject(v)
	}
	s.keys = r.keyValues(otlpMetadata(metadata, attrs), attr(attrs), attr(res))
	if r.mapped(s, attr(attrs)) {
		return s, nil
	}
	s.conv = r.conventionOf(attrs, sp.Events())
	switch s.conv {
	case OpenInference:
		oi, _ := attrs.Get("openinference.span.kind")
		s.kind = strings.ToUpper(oi.AsString())
		r.openInference(s, attrs)
	case LangfuseOTel:
		r.langfuseOTel(s, attrs)
	case OpenLLMetry:
		r.openLLMetry(s, attrs, sp.Events())
	case GenAI:
		op, _ := attrs.Get("gen_ai.operation.name")
		s.kind = op.AsString()
		r.genAI(s, attrs)
	default:
		s.kind = "no convention's attributes"
		if r.Convention != "" {
			s.kind = "no " + string(r.Convention) + " attributes"
		}
	}
	switch s.role {
	case roleUnknown:
		s.attrKeys = attrKeys(attrs, false)
	case roleOther:
		s.attrKeys = attrKeys(attrs, true)
	}
	return s, nil
}

// repeatedInAttributes reports an attribute whose string holds a JSON
// object or array with a key given twice, which the JSON decoders that
// read such attributes would settle silently.
func repeatedInAttributes(attrs pcommon.Map, at place) error {
	for k, v := range attrs.All() {
		if v.Type() != pcommon.ValueTypeStr {
			continue
		}
		s := strings.TrimSpace(v.Str())
		if s == "" || s[0] != '{' && s[0] != '[' {
			continue
		}
		if err := jsonin.RepeatedKey([]byte(s)); err != nil {
			return &diag.Error{File: at.file, Line: at.line, Msg: fmt.Sprintf("attribute %s holds JSON: %v", diag.Quote(k), err)}
		}
	}
	return nil
}

// otlpMetadata finds metadata.NAME in the OpenInference metadata
// attribute, then in the attributes the other conventions flatten their
// metadata into: langfuse.observation.metadata.NAME (or the JSON object
// langfuse.observation.metadata), langfuse.trace.metadata.NAME and
// OpenLLMetry's association properties, traceloop.association.properties.NAME.
func otlpMetadata(metadata map[string]any, attrs pcommon.Map) finder {
	var observation map[string]any
	if v, ok := attrs.Get("langfuse.observation.metadata"); ok {
		observation = valueObject(v)
	}
	return func(name string) (any, bool) {
		if v, ok := lookup(metadata, name); ok {
			return v, true
		}
		for _, prefix := range []string{"langfuse.observation.metadata.", "langfuse.trace.metadata.", "traceloop.association.properties."} {
			if v, ok := attrs.Get(prefix + name); ok {
				return v.AsRaw(), true
			}
		}
		return lookup(observation, name)
	}
}

// maxAttrKeys bounds the attribute keys kept of one unmapped span.
const maxAttrKeys = 32

// attrKeys lists a span's attribute keys (at most maxAttrKeys), or only
// those holding JSON, for the report of what unmapped spans carry.
func attrKeys(attrs pcommon.Map, onlyJSON bool) []attrKey {
	var keys []attrKey
	for k, v := range attrs.All() {
		if len(keys) == maxAttrKeys {
			break
		}
		isJSON := v.Type() == pcommon.ValueTypeMap || v.Type() == pcommon.ValueTypeSlice
		if v.Type() == pcommon.ValueTypeStr {
			t := strings.TrimSpace(v.Str())
			isJSON = len(t) > 1 && (t[0] == '[' || t[0] == '{') && json.Valid([]byte(t))
		}
		if isJSON || !onlyJSON {
			keys = append(keys, attrKey{k, isJSON})
		}
	}
	return keys
}

// valueObject reads an object attribute: a map, or a JSON string holding one.
func valueObject(v pcommon.Value) map[string]any {
	switch v.Type() {
	case pcommon.ValueTypeMap:
		return v.Map().AsRaw()
	case pcommon.ValueTypeStr:
		return objectJSON(v.Str())
	}
	return nil
}

// valueJSON reads a structured attribute: a map or slice, or a JSON string
// holding one.
func valueJSON(v pcommon.Value) (any, bool) {
	switch v.Type() {
	case pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
		return v.AsRaw(), true
	case pcommon.ValueTypeStr:
		var out any
		if err := json.Unmarshal([]byte(v.Str()), &out); err == nil {
			return out, true
		}
	}
	return nil, false
}

// openInference reads a span under the OpenInference conventions.
func (r *rules) openInference(s *span, attrs pcommon.Map) {
	switch s.kind {
	case "RETRIEVER", "RERANKER":
		s.role = roleRetriever
	case "LLM":
		s.role = roleGenerator
	case "CHAIN", "EMBEDDING", "TOOL", "AGENT", "GUARDRAIL", "EVALUATOR", "PROMPT":
		s.role = roleOther
		return
	default:
		return
	}
	docPrefix := "retrieval.documents."
	if s.kind == "RERANKER" {
		docPrefix = "reranker.output_documents."
	}
	docs, inDocs, in, out, prompts, choices := indexed{}, indexed{}, indexed{}, indexed{}, indexed{}, indexed{}
	var prompt []any
	var outputValue, outputMime string
	for k, v := range attrs.All() {
		switch {
		case strings.HasPrefix(k, docPrefix):
			docs.put(k[len(docPrefix):], v)
		case strings.HasPrefix(k, "reranker.input_documents."):
			inDocs.put(k[len("reranker.input_documents."):], v)
		case k == "input.value" && s.kind == "RETRIEVER", k == "reranker.query":
			s.query = v.AsString()
		case k == "reranker.top_k":
			s.topK = integer(v.AsRaw())
		case strings.HasPrefix(k, "llm.input_messages."):
			in.put(k[len("llm.input_messages."):], v)
		case strings.HasPrefix(k, "llm.output_messages."):
			out.put(k[len("llm.output_messages."):], v)
		case strings.HasPrefix(k, "llm.prompts."):
			prompts.put(k[len("llm.prompts."):], v)
		case strings.HasPrefix(k, "llm.choices."):
			choices.put(k[len("llm.choices."):], v)
		case k == "llm.prompts" && v.Type() == pcommon.ValueTypeSlice:
			prompt = v.Slice().AsRaw()
		case k == "llm.model_name":
			s.model = v.AsString()
		case k == "llm.token_count.prompt":
			s.count(&s.tokens.Prompt, k, v.AsRaw())
		case k == "llm.token_count.completion":
			s.count(&s.tokens.Completion, k, v.AsRaw())
		case k == "output.value":
			outputValue = v.AsString()
		case k == "output.mime_type":
			outputMime = v.AsString()
		}
	}
	if s.role == roleRetriever {
		s.hasDocs, s.docs = len(docs) > 0, r.oiDocuments(docs)
		s.hasInputDocs, s.inputDocs = len(inDocs) > 0, r.oiDocuments(inDocs)
		return
	}
	s.prompt, s.hasPrompt = messages(in)
	if !s.hasPrompt {
		s.prompt, s.hasPrompt = fieldTexts(prompts, "prompt.text")
	}
	if !s.hasPrompt && prompt != nil {
		s.prompt, s.hasPrompt = messageText(prompt)
	}
	s.answer, s.hasAnswer = messages(out)
	if !s.hasAnswer {
		s.answer, s.hasAnswer = fieldTexts(choices, "completion.text")
	}
	if !s.hasAnswer && outputValue != "" && !strings.Contains(outputMime, "json") {
		s.answer, s.hasAnswer = outputValue, true
	}
}

// oiDocuments reads OpenInference's flattened documents.
func (r *rules) oiDocuments(docs indexed) []document {
	var out []document
	docs.each(func(d map[string]pcommon.Value) {
		raw := rawDocument{}
		if v, ok := d["document.id"]; ok {
			raw.id = v.AsRaw()
		}
		if v, ok := d["document.content"]; ok {
			c := v.AsString()
			raw.content = &c
		}
		if v, ok := d["document.score"]; ok {
			raw.score = v.AsRaw()
		}
		if v, ok := d["document.metadata"]; ok {
			raw.metadata = valueObject(v)
		}
		out = append(out, r.document(raw))
	})
	return out
}

// messages joins the text of OpenInference messages: message.content, or
// the text parts of message.contents.
func messages(x indexed) (string, bool) {
	var texts []string
	x.each(func(m map[string]pcommon.Value) {
		if v, ok := m["message.content"]; ok {
			texts = append(texts, v.AsString())
			return
		}
		parts := indexed{}
		for k, v := range m {
			if rest, ok := strings.CutPrefix(k, "message.contents."); ok {
				parts.put(rest, v)
			}
		}
		var inner []string
		parts.each(func(p map[string]pcommon.Value) {
			if t, ok := p["message_content.type"]; ok && t.AsString() != "text" {
				return
			}
			if v, ok := p["message_content.text"]; ok {
				inner = append(inner, v.AsString())
			}
		})
		if len(inner) > 0 {
			texts = append(texts, strings.Join(inner, "\n"))
		}
	})
	return strings.Join(texts, "\n"), len(texts) > 0
}

// fieldTexts joins one field of every entry.
func fieldTexts(x indexed, field string) (string, bool) {
	var texts []string
	x.each(func(m map[string]pcommon.Value) {
		if v, ok := m[field]; ok {
			texts = append(texts, v.AsString())
		}
	})
	return strings.Join(texts, "\n"), len(texts) > 0
}

// genAI reads a span under the OpenTelemetry GenAI conventions: a
// retrieval (gen_ai.retrieval.documents, .query.text, gen_ai.data_source.id,
// gen_ai.retrieval.top_k or the older gen_ai.request.top_k) or a datastore
// tool call (execute_tool with gen_ai.tool.type datastore, its documents
// in gen_ai.tool.call.result) is a stage; a model call is the generator.
func (r *rules) genAI(s *span, attrs pcommon.Map) {
	switch s.kind {
	case "retrieval":
		s.role = roleRetriever
		if v, ok := attrs.Get("gen_ai.retrieval.documents"); ok {
			if list, ok := valueJSON(v); ok {
				if docs, ok := documentList(list, true); ok {
					r.setDocs(s, docs)
				}
			}
		}
		if v, ok := attrs.Get("gen_ai.retrieval.query.text"); ok {
			s.query = v.AsString()
		}
	case "execute_tool":
		s.role = roleOther
		if t, ok := attrs.Get("gen_ai.tool.type"); !ok || t.AsString() != "datastore" {
			return
		}
		s.kind, s.role = "execute_tool (datastore)", roleRetriever
		if res, ok := jsonOf(attrs, "gen_ai.tool.call.result"); ok {
			if docs, ok := documentList(res, true); ok {
				r.setDocs(s, docs)
			}
		}
		if args, ok := jsonOf(attrs, "gen_ai.tool.call.arguments"); ok {
			s.query = queryText(args, 0)
		}
	case "chat", "text_completion", "generate_content":
		s.role = roleGenerator
		r.genAIGeneration(s, attrs)
		return
	case "embeddings", "create_agent", "invoke_agent", "invoke_workflow":
		s.role = roleOther
		return
	default:
		return
	}
	if v, ok := attrs.Get("gen_ai.data_source.id"); ok {
		s.source = v.AsString()
	}
	for _, key := range []string{"gen_ai.retrieval.top_k", "gen_ai.request.top_k"} {
		if v, ok := attrs.Get(key); ok && s.topK == nil {
			s.topK = integer(v.AsRaw())
		}
	}
}
