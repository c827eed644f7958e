package traceimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Convention is a set of span attributes a tracing client writes (OTLP
// only): each span is read under the convention it carries, found by its
// marker attribute, unless Mapping.Convention forces one.
type Convention string

// The conventions, each with its marker.
const (
	// OpenInference: openinference.span.kind.
	OpenInference Convention = "openinference"
	// OpenLLMetry (Traceloop): traceloop.span.kind or traceloop.entity.*;
	// its vector-store instrumentations' db.query.result events; its LLM
	// instrumentations' llm.request.type.
	OpenLLMetry Convention = "openllmetry"
	// LangfuseOTel is the Langfuse OpenTelemetry SDK's
	// langfuse.observation.type.
	LangfuseOTel Convention = "langfuse"
	// GenAI is OpenTelemetry's GenAI semantic conventions:
	// gen_ai.operation.name.
	GenAI Convention = "genai"
)

// allConventions lists every convention, in the order a span's markers are
// tried when none is forced.
var allConventions = []Convention{OpenInference, LangfuseOTel, OpenLLMetry, GenAI}

// mappedConvention counts, in the manifest, the spans a documents rule
// read; noConvention those no convention's marker was found on.
const (
	mappedConvention = "documents mapping"
	noConvention     = "none"
)

// ParseConvention reads a convention's name; "" (or "auto") detects each
// span's.
func ParseConvention(s string) (Convention, error) {
	if s == "" || strings.EqualFold(s, "auto") {
		return "", nil
	}
	for _, c := range allConventions {
		if strings.EqualFold(s, string(c)) {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown convention %q: use auto, %s", s, conventionNames())
}

func conventionNames() string {
	var names []string
	for _, c := range allConventions {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}

// marks tells whether a span carries convention c's marker.
func marks(c Convention, attrs pcommon.Map, events ptrace.SpanEventSlice) bool {
	has := func(k string) bool { _, ok := attrs.Get(k); return ok }
	switch c {
	case OpenInference:
		return has("openinference.span.kind")
	case LangfuseOTel:
		return has("langfuse.observation.type")
	case OpenLLMetry:
		if has("traceloop.span.kind") || has("traceloop.entity.output") || has("traceloop.entity.name") {
			return true
		}
		if !has("gen_ai.operation.name") && has("llm.request.type") {
			return true
		}
		for _, e := range events.All() {
			if e.Name() == dbQueryResult {
				return true
			}
		}
	case GenAI:
		return has("gen_ai.operation.name")
	}
	return false
}

// conventionOf is the convention a span is read under: the one forced,
// when the span carries its marker, else the first whose marker it
// carries; "" for none.
func (r *rules) conventionOf(attrs pcommon.Map, events ptrace.SpanEventSlice) Convention {
	if r.Convention != "" {
		if marks(r.Convention, attrs, events) {
			return r.Convention
		}
		return ""
	}
	for _, c := range allConventions {
		if marks(c, attrs, events) {
			return c
		}
	}
	return ""
}

// jsonOf reads an attribute holding JSON (a string, as the clients write
// it, or a structured value); a string that is not JSON is itself.
func jsonOf(attrs pcommon.Map, key string) (any, bool) {
	v, ok := attrs.Get(key)
	if !ok {
		return nil, false
	}
	if parsed, ok := valueJSON(v); ok {
		return parsed, true
	}
	return v.AsRaw(), true
}

// queryText finds the text of a retrieval's query in its recorded input:
// a string, or the first string under query, queryStr, query_str, input,
// question or text, or in args (a list, its first element), a few levels
// deep.
func queryText(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if len(x) > 0 {
			return queryText(x[0], depth+1)
		}
	case map[string]any:
		for _, key := range []string{"query", "queryStr", "query_str", "input", "question", "text", "args", "kwargs"} {
			if q := queryText(x[key], depth+1); q != "" {
				return q
			}
		}
	}
	return ""
}

// setDocs makes the span a retrieval stage with these documents.
func (r *rules) setDocs(s *span, docs []rawDocument) {
	s.role, s.hasDocs = roleRetriever, true
	for _, d := range docs {
		s.docs = append(s.docs, r.document(d))
	}
}

// dbQueryResult is the event OpenLLMetry's vector-store instrumentations
// write for each result.
const dbQueryResult = "db.query.result"

// openLLMetry reads a span under OpenLLMetry's conventions: a workflow,
// task, agent or tool (traceloop.span.kind) whose traceloop.entity.output
// is a list of documents is a retrieval stage, its query taken from
// traceloop.entity.input; a vector-store query's db.query.result events
// are one too; an LLM span (llm.request.type) is the generator.
func (r *rules) openLLMetry(s *span, attrs pcommon.Map, events ptrace.SpanEventSlice) {
	s.role = roleOther
	if k, ok := attrs.Get("traceloop.span.kind"); ok {
		s.kind = "traceloop " + k.AsString()
	}
	var results []rawDocument
	for _, e := range events.All() {
		if e.Name() != dbQueryResult {
			continue
		}
		ea := e.Attributes()
		raw := rawDocument{}
		if v, ok := ea.Get("db.query.result.id"); ok {
			raw.id = v.AsRaw()
		}
		if v, ok := ea.Get("db.query.result.score"); ok {
			raw.score = v.AsRaw()
		}
		if v, ok := ea.Get("db.query.result.document"); ok {
			c := v.AsString()
			raw.content = &c
		}
		if v, ok := ea.Get("db.query.result.metadata"); ok {
			raw.metadata = valueObject(v)
		}
		results = append(results, raw)
	}
	if len(results) > 0 {
		if s.kind == "" {
			s.kind = "vector store query"
		}
		r.setDocs(s, results)
		return
	}
	if out, ok := jsonOf(attrs, "traceloop.entity.output"); ok {
		if docs, ok := documentList(out, false); ok {
			r.setDocs(s, docs)
			if in, ok := jsonOf(attrs, "traceloop.entity.input"); ok {
				s.query = queryText(in, 0)
				if docs, ok := argumentList(in); ok {
					s.hasInputDocs = true
					for _, d := range docs {
						s.inputDocs = append(s.inputDocs, r.document(d))
					}
				}
			}
			return
		}
	}
	if t, ok := attrs.Get("llm.request.type"); ok {
		if s.kind == "" {
			s.kind = "llm.request.type " + t.AsString()
		}
		s.role = roleGenerator
		in, out := indexed{}, indexed{}
		for k, v := range attrs.All() {
			if rest, ok := strings.CutPrefix(k, "gen_ai.prompt."); ok {
				in.put(rest, v)
			} else if rest, ok := strings.CutPrefix(k, "gen_ai.completion."); ok {
				out.put(rest, v)
			}
		}
		s.prompt, s.hasPrompt = fieldTexts(in, "content")
		s.answer, s.hasAnswer = fieldTexts(out, "content")
		r.genAIGeneration(s, attrs)
		if v, ok := attrs.Get("gen_ai.usage.prompt_tokens"); ok && s.tokens.Prompt == nil {
			s.count(&s.tokens.Prompt, "gen_ai.usage.input_tokens", v.AsRaw())
		}
		if v, ok := attrs.Get("gen_ai.usage.completion_tokens"); ok && s.tokens.Completion == nil {
			s.count(&s.tokens.Completion, "gen_ai.usage.output_tokens", v.AsRaw())
		}
	}
	if s.kind == "" {
		s.kind = "traceloop entity"
	}
}

// langfuseOTel reads a span under the Langfuse OpenTelemetry SDK's
// conventions: a generation is the generator (langfuse.observation.input
// and .output, .model.name, .usage_details); a retriever, or a span,
// chain, tool or agent whose output is a list of documents (LangChain's
// retrievers are spans), is a retrieval stage, its query the input.
func (r *rules) langfuseOTel(s *span, attrs pcommon.Map) {
	t, _ := attrs.Get("langfuse.observation.type")
	s.kind = strings.ToLower(t.AsString())
	in, hasIn := jsonOf(attrs, "langfuse.observation.input")
	out, hasOut := jsonOf(attrs, "langfuse.observation.output")
	switch s.kind {
	case "generation":
		s.role = roleGenerator
		if hasIn {
			s.prompt, s.hasPrompt = messageText(in)
		}
		if hasOut {
			s.answer, s.hasAnswer = messageText(out)
		}
		if v, ok := attrs.Get("langfuse.observation.model.name"); ok {
			s.model = v.AsString()
		}
		if u, ok := jsonOf(attrs, "langfuse.observation.usage_details"); ok {
			if m, ok := u.(map[string]any); ok {
				s.count(&s.tokens.Prompt, "langfuse.observation.usage_details input", firstOf(m["input"], m["prompt_tokens"], m["promptTokens"]))
				s.count(&s.tokens.Completion, "langfuse.observation.usage_details output", firstOf(m["output"], m["completion_tokens"], m["completionTokens"]))
			}
		}
		return
	case "embedding", "event", "evaluator", "guardrail":
		s.role = roleOther
		return
	}
	s.role = roleOther
	if hasOut {
		if docs, ok := documentList(out, s.kind == "retriever"); ok {
			r.setDocs(s, docs)
		}
	}
	if s.kind == "retriever" {
		s.role = roleRetriever
	}
	if s.role == roleRetriever && hasIn {
		s.query = queryText(in, 0)
	}
}

// genAIGeneration reads the GenAI attributes of a model call: the prompt
// (gen_ai.system_instructions, gen_ai.input.messages), the answer
// (gen_ai.output.messages), the model and the token counts, each where
// the span has it.
func (r *rules) genAIGeneration(s *span, attrs pcommon.Map) {
	var texts []string
	for _, key := range []string{"gen_ai.system_instructions", "gen_ai.input.messages"} {
		if v, ok := attrs.Get(key); ok {
			if parsed, ok := valueJSON(v); ok {
				if t, ok := messageText(parsed); ok {
					texts = append(texts, t)
				}
			}
		}
	}
	if len(texts) > 0 {
		s.prompt, s.hasPrompt = strings.Join(texts, "\n"), true
	}
	if v, ok := attrs.Get("gen_ai.output.messages"); ok {
		if parsed, ok := valueJSON(v); ok {
			if a, ok := messageText(parsed); ok {
				s.answer, s.hasAnswer = a, true
			}
		}
	}
	for _, key := range []string{"gen_ai.request.model", "gen_ai.response.model"} {
		if v, ok := attrs.Get(key); ok {
			s.model = v.AsString()
		}
	}
	if v, ok := attrs.Get("gen_ai.usage.input_tokens"); ok {
		s.count(&s.tokens.Prompt, "gen_ai.usage.input_tokens", v.AsRaw())
	}
	if v, ok := attrs.Get("gen_ai.usage.output_tokens"); ok {
		s.count(&s.tokens.Completion, "gen_ai.usage.output_tokens", v.AsRaw())
	}
}

// argumentList finds a list of documents among a call's recorded
// arguments (OpenLLMetry's {"args": [...], "kwargs": {...}}): the input
// of a reranker or a packer, which says which stage it took.
func argumentList(v any) ([]rawDocument, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	args, _ := m["args"].([]any)
	kwargs, _ := m["kwargs"].(map[string]any)
	for _, a := range args {
		if docs, ok := documentList(a, false); ok {
			return docs, true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(kwargs)) {
		if docs, ok := documentList(kwargs[k], false); ok {
			return docs, true
		}
	}
	return nil, false
}
