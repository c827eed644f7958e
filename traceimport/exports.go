package traceimport

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// readExport reads the records of a LangSmith or Langfuse export: JSON
// Lines of objects, a JSON array of them, or an object whose "data" (the
// API's paging envelope) or "runs" holds them. In an array the line number
// of a record is its position in the array.
func readExport(f *input.File, each func(place, []*span) error, decode func(map[string]any, place) (*span, error)) error {
	one := func(at place, data []byte) error {
		if err := jsonin.Unique(at.file, max(at.line, 1), data); err != nil {
			return err
		}
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
			return &diag.Error{File: at.file, Line: at.line, Msg: "not a JSON object", Hint: "one run or observation a line"}
		}
		s, err := decode(obj, at)
		if err != nil {
			return err
		}
		return each(at, []*span{s})
	}
	line, first, cut, err := leading(f, MaxRecord)
	if err != nil {
		return err
	}
	data := wholeDocument(f, line, cut)
	if data == nil && first == '{' {
		var envelope map[string]json.RawMessage
		if json.Unmarshal(line, &envelope) == nil && envelope["id"] == nil && (envelope["data"] != nil || envelope["runs"] != nil) {
			data = line
		}
	}
	if data == nil {
		return eachLine(f, func(n int, data []byte) error { return one(place{f.Name, n}, data) })
	}
	if err := jsonin.Unique(f.Name, 1, data); err != nil {
		return err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		var envelope map[string]json.RawMessage
		if err := json.Unmarshal(data, &envelope); err != nil {
			return &diag.Error{File: f.Name, Msg: "not JSON: " + err.Error()}
		}
		inner := envelope["data"]
		if inner == nil {
			inner = envelope["runs"]
		}
		if err := json.Unmarshal(inner, &list); err != nil {
			return &diag.Error{File: f.Name, Msg: `neither JSON Lines, a JSON array, nor an object with a "data" or "runs" array`}
		}
	}
	var errs diag.List
	for i, raw := range list {
		if errs.Add(one(place{f.Name, i + 1}, raw)) {
			break
		}
	}
	return errs.Err()
}

// str reads a string field; "" when absent or not a string.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// object reads an object field; nil when absent or not an object.
func object(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

// required reads the fields a record cannot do without.
func required(m map[string]any, at place, keys ...string) error {
	for _, k := range keys {
		if strings.TrimSpace(str(m, k)) == "" {
			return &diag.Error{File: at.file, Line: at.line, Msg: fmt.Sprintf("missing or empty %q", k)}
		}
	}
	return nil
}

// timestamp reads a time: RFC 3339, the same without a zone (UTC, as
// LangSmith writes it), or a number of milliseconds since the epoch (as
// LangSmith's JavaScript client writes end_time). 0: absent.
func timestamp(m map[string]any, key string, at place) (int64, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, nil
	}
	if ms, isNum := v.(float64); isNum {
		return int64(ms * 1e6), nil
	}
	s, _ := v.(string)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixNano(), nil
		}
	}
	return 0, &diag.Error{File: at.file, Line: at.line, Msg: fmt.Sprintf("%q: %v is not a time", key, v)}
}

// times reads a record's start and end.
func times(m map[string]any, at place, start, end string) (int64, int64, error) {
	s, err := timestamp(m, start, at)
	if err != nil {
		return 0, 0, err
	}
	e, err := timestamp(m, end, at)
	return s, e, err
}

// documents reads a retriever's output: a list of documents, or an object
// whose "documents" (or "output") holds them.
func (r *rules) documents(s *span, output any) {
	docs, ok := documentList(output, true)
	if !ok {
		return
	}
	s.hasDocs = true
	for _, d := range docs {
		s.docs = append(s.docs, r.document(d))
	}
}

// readLangSmith reads LangSmith runs.
func readLangSmith(f *input.File, r *rules, each func(place, []*span) error) error {
	return readExport(f, each, r.langSmithRun)
}

func (r *rules) langSmithRun(m map[string]any, at place) (*span, error) {
	if err := required(m, at, "id", "run_type"); err != nil {
		return nil, err
	}
	s := &span{id: str(m, "id"), trace: str(m, "trace_id"), parent: str(m, "parent_run_id"),
		name: str(m, "name"), kind: str(m, "run_type"), place: at}
	if s.trace == "" {
		if s.parent != "" {
			return nil, &diag.Error{File: at.file, Line: at.line, Msg: fmt.Sprintf("run %s has a parent but no trace_id", s.id)}
		}
		s.trace = s.id
	}
	var err error
	if s.start, s.end, err = times(m, at, "start_time", "end_time"); err != nil {
		return nil, err
	}
	extra := object(m, "extra")
	s.keys = r.keyValues(inMap(object(extra, "metadata")), inMap(m), inMap(nil))
	if r.mapped(s, inMap(m)) {
		return s, nil
	}
	inputs, outputs := object(m, "inputs"), object(m, "outputs")
	switch s.kind {
	case "retriever":
		s.role = roleRetriever
		if outputs != nil {
			r.documents(s, outputs)
		}
	case "llm":
		s.role = roleGenerator
		for _, key := range []string{"messages", "prompts", "prompt", "input"} {
			if v, ok := inputs[key]; ok {
				if s.prompt, s.hasPrompt = messageText(v); s.hasPrompt {
					break
				}
			}
		}
		for _, key := range []string{"generations", "output", "text"} {
			if v, ok := outputs[key]; ok {
				if s.answer, s.hasAnswer = messageText(v); s.hasAnswer {
					break
				}
			}
		}
		usage := object(object(outputs, "llm_output"), "token_usage")
		s.count(&s.tokens.Prompt, "prompt_tokens", firstOf(m["prompt_tokens"], usage["prompt_tokens"]))
		s.count(&s.tokens.Completion, "completion_tokens", firstOf(m["completion_tokens"], usage["completion_tokens"]))
		params := object(extra, "invocation_params")
		s.model, _ = firstOf(params["model"], params["model_name"], object(extra, "metadata")["ls_model_name"]).(string)
	case "chain", "tool", "embedding", "prompt", "parser":
		s.role = roleOther
	}
	return s, nil
}

// firstOf is the first value that is not nil.
func firstOf(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// readLangfuse reads Langfuse observations.
func readLangfuse(f *input.File, r *rules, each func(place, []*span) error) error {
	return readExport(f, each, r.langfuseObservation)
}

func (r *rules) langfuseObservation(m map[string]any, at place) (*span, error) {
	if err := required(m, at, "id", "traceId", "type"); err != nil {
		return nil, err
	}
	s := &span{id: str(m, "id"), trace: str(m, "traceId"), parent: str(m, "parentObservationId"),
		name: str(m, "name"), kind: str(m, "type"), place: at}
	var err error
	if s.start, s.end, err = times(m, at, "startTime", "endTime"); err != nil {
		return nil, err
	}
	metadata, _ := m["metadata"].(map[string]any)
	if md, isStr := m["metadata"].(string); isStr {
		metadata = objectJSON(md)
	}
	s.keys = r.keyValues(inMap(metadata), inMap(m), inMap(nil))
	if r.mapped(s, inMap(m)) {
		return s, nil
	}
	switch strings.ToUpper(s.kind) {
	case "RETRIEVER":
		s.role = roleRetriever
		r.documents(s, m["output"])
	case "GENERATION":
		s.role = roleGenerator
		s.prompt, s.hasPrompt = messageText(m["input"])
		s.answer, s.hasAnswer = messageText(m["output"])
		s.model = str(m, "model")
		usage := object(m, "usageDetails")
		if usage == nil {
			usage = object(m, "usage")
		}
		s.count(&s.tokens.Prompt, "input tokens", firstOf(usage["input"], usage["promptTokens"]))
		s.count(&s.tokens.Completion, "output tokens", firstOf(usage["output"], usage["completionTokens"]))
	case "SPAN", "EVENT", "AGENT", "TOOL", "CHAIN", "EVALUATOR", "EMBEDDING", "GUARDRAIL":
		s.role = roleOther
	}
	return s, nil
}
