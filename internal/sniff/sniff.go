// Package sniff tells what a file holds from its first bytes (its head):
// its first line, the keys of the JSON object on it, and whether it reads
// as a TREC run or as judgments, so that the readers that detect formats
// by content, and the errors that say a file was given in the wrong place,
// decide alike.
package sniff

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// FirstLine returns the first non-blank line of head, trimmed.
func FirstLine(head []byte) []byte {
	for line := range bytes.Lines(head) {
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return t
		}
	}
	return nil
}

// FirstKeys are the keys of the object on the first non-blank line of
// head, each with its value as written, or nil when that line is not a
// JSON object: enough to tell one kind of file from another. A line longer
// than head still tells the keys before the cut, the last value cut short.
func FirstKeys(head []byte) map[string]json.RawMessage {
	line := FirstLine(head)
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	keys := map[string]json.RawMessage{}
	value := func(start, end int64) json.RawMessage { return bytes.TrimLeft(line[start:end], " \t\r\n:") }
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			break
		}
		start := dec.InputOffset()
		if err := skipValue(dec); err != nil {
			if v := value(start, int64(len(line))); len(v) > 0 {
				keys[key] = v
			}
			break
		}
		keys[key] = value(start, dec.InputOffset())
	}
	return keys
}

// skipValue reads one JSON value from dec, token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// LooksLikeRun reports whether the start of a file reads as a run rather
// than judgments: a TREC run line (query Q0 item rank score tag) or a JSON
// ranked list ({"query","items":[...]}).
func LooksLikeRun(head []byte) bool {
	if f := bytes.Fields(FirstLine(head)); len(f) == 6 && bytes.EqualFold(f[1], []byte("Q0")) {
		return true
	}
	items := FirstKeys(head)["items"]
	return len(items) > 0 && items[0] == '[' // not a query named "items"
}

// LooksLikeJudgments reports whether the start of a file reads as
// judgments rather than a run: a qrels line (four columns, the last an
// integer) or a JSON judgment (with "grade").
func LooksLikeJudgments(head []byte) bool {
	if f := bytes.Fields(FirstLine(head)); len(f) == 4 {
		if _, err := strconv.Atoi(string(f[3])); err == nil {
			return true
		}
	}
	grade := FirstKeys(head)["grade"]
	return len(grade) > 0 && grade[0] != '{' // not a query named "grade"
}

// RunLine reports whether keys, a first line's (FirstKeys), are those of a
// JSON Lines run: "items", or a "query" that is not an object (a JSON
// object run holds objects, even under a query named "query").
func RunLine(keys map[string]json.RawMessage) bool {
	q := keys["query"]
	_, items := keys["items"]
	return len(q) > 0 && q[0] != '{' || items
}

// JudgmentLine reports whether keys, a first line's (FirstKeys), are those
// of a JSON Lines judgment: "item" and a "query" that is not an object.
func JudgmentLine(keys map[string]json.RawMessage) bool {
	q := keys["query"]
	_, item := keys["item"]
	return len(q) > 0 && q[0] != '{' && item
}

// NuggetFile reports whether head starts castorini/nuggetizer's nugget
// file (TREC RAG 2024): its first line's object has the key "qid" or
// "nuggets", which topics in other formats do not have.
func NuggetFile(head []byte) bool { return hasKey(head, "qid", "nuggets") }

// hasKey reports whether the object on the first non-blank line of head
// has one of keys at its top level (FirstKeys).
func hasKey(head []byte, keys ...string) bool {
	first := FirstKeys(head)
	return slices.ContainsFunc(keys, func(k string) bool { _, ok := first[k]; return ok })
}
