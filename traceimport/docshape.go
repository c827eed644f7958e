package traceimport

// The shapes of a retrieved document written as JSON, as the clients
// write them:
//
//   - GenAI's and plain lists' {id, score, content | text, metadata};
//   - LangChain's Document, {pageContent | page_content, metadata, id},
//     also serialised as {"lc": 1, "kwargs": {...}};
//   - LlamaIndex's NodeWithScore, {"node": {id_, text, metadata}, "score"}.
//

// jsonDocument reads a document written as a JSON object, in any of the
// shapes above.
func jsonDocument(v any) rawDocument {
	m, _ := v.(map[string]any)
	m = unwrapLC(m)
	raw := rawDocument{score: m["score"]}
	if node, ok := m["node"].(map[string]any); ok {
		m = unwrapLC(node)
	}
	raw.id = firstOf(m["id"], m["id_"])
	raw.metadata, _ = m["metadata"].(map[string]any)
	for _, key := range []string{"content", "page_content", "pageContent", "text"} {
		if c, ok := m[key].(string); ok {
			raw.content = &c
			break
		}
	}
	return raw
}

// unwrapLC is a LangChain object serialised with its constructor
// ({"lc": 1, "type": "constructor", "kwargs": {...}}) reduced to its
// fields.
func unwrapLC(m map[string]any) map[string]any {
	if _, lc := m["lc"]; lc {
		if kw, ok := m["kwargs"].(map[string]any); ok {
			return kw
		}
	}
	return m
}

// isDocument tells an object that has a document's shape: a node with
// an id or text, a LangChain page content, or an id beside a score or a
// text. An object that only might be one (a message with "content") is
// not.
func isDocument(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	m = unwrapLC(m)
	if node, ok := m["node"].(map[string]any); ok {
		node = unwrapLC(node)
		return node["id_"] != nil || node["id"] != nil || node["text"] != nil
	}
	if _, ok := firstOf(m["pageContent"], m["page_content"]).(string); ok {
		return true
	}
	_, hasID := scalar(firstOf(m["id"], m["id_"]))
	return hasID && (m["score"] != nil || m["text"] != nil || m["content"] != nil)
}

// documentList reads a value that is a list of documents: a list whose
// every element has a document's shape (isDocument), or an object whose
// "documents", "nodes" or "output" is one. Under loose, a
// list of any objects (or none) is taken, for spans that say they
// retrieve; otherwise an empty list is no evidence and is refused.
func documentList(v any, loose bool) ([]rawDocument, bool) {
	list, ok := v.([]any)
	if !ok {
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false
		}
		for _, key := range []string{"documents", "nodes", "output"} {
			if list, ok = m[key].([]any); ok {
				break
			}
		}
		if !ok {
			return nil, false
		}
	}
	if !loose && len(list) == 0 {
		return nil, false
	}
	out := make([]rawDocument, 0, len(list))
	for _, d := range list {
		if !loose && !isDocument(d) {
			return nil, false
		}
		out = append(out, jsonDocument(d))
	}
	return out, true
}
