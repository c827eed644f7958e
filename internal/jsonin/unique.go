package jsonin

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragstat/ragstat/internal/diag"
)

// Unique reports the first key given twice in one object of the JSON text
// data, at any depth, as an error naming the key, where it is (a JSON
// pointer) and its line, counted from line (the line data starts on; 1
// for a whole file). Anything else, valid or not, is left to the
// reader's decoder: Unique is the one rule on repeated keys for readers
// whose decoder would keep the first or the last silently (OTLP's, a
// tokenizer's, a map's). With no file the error starts "line N:".
func Unique(file string, line int, data []byte) error {
	msg, at := repeated(data)
	if msg == "" {
		return nil
	}
	line += bytes.Count(data[:at], []byte{'\n'})
	if file == "" {
		return fmt.Errorf("line %d: %s", line, msg)
	}
	return &diag.Error{File: file, Line: line, Msg: msg, Hint: "give each key once"}
}

// RepeatedKey is Unique for JSON text held in a value (an attribute
// holding JSON): the error names the key and where it is in the text.
func RepeatedKey(data []byte) error {
	if msg, _ := repeated(data); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// repeated describes the first repeated key of data and gives its offset;
// "" when there is none.
func repeated(data []byte) (string, int64) {
	if jsontext.Value(data).IsValid() {
		return "", 0
	}
	d := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowInvalidUTF8(true))
	for {
		_, err := d.ReadValue()
		var syn *jsontext.SyntacticError
		switch {
		case err == nil:
			continue // JSON Lines of values
		case !errors.As(err, &syn) || !errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return "", 0
		}
		key := syn.JSONPointer.LastToken()
		where := ""
		ptr := string(syn.JSONPointer)
		if parent := ptr[:max(strings.LastIndexByte(ptr, '/'), 0)]; parent != "" {
			where = " in " + diag.Quote(parent)
		}
		return fmt.Sprintf("key %s given twice in one object%s (JSON readers disagree on which counts: ragstat takes neither)", diag.Quote(key), where),
			min(max(syn.ByteOffset, 0), int64(len(data)))
	}
}
