package jsonin

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragstat/ragstat/diag"
)

// Unique reports the first key given twice in one object of the JSON text
// data, at any depth, as an error naming the key, where it is (a JSON
// pointer) and its line, counted from line (the line data starts on; 1
// for a whole file). Anything else, valid or not, is left to the
// reader's decoder: Unique is the one rule on repeated keys for readers
// whose decoder would keep the first or the last silently (OTLP's, a
// tokenizer's, a map's).
func Unique(file string, line int, data []byte) error {
	if jsontext.Value(data).IsValid() {
		return nil
	}
	d := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowInvalidUTF8(true))
	for {
		_, err := d.ReadValue()
		var syn *jsontext.SyntacticError
		switch {
		case err == nil:
			continue // JSON Lines of values, or a value in several lines
		case !errors.As(err, &syn) || !errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return nil
		}
		key := syn.JSONPointer.LastToken()
		at := min(max(syn.ByteOffset, 0), int64(len(data)))
		where := ""
		if parent := string(syn.JSONPointer)[:len(syn.JSONPointer)-len(key)-1]; parent != "" {
			where = " in " + diag.Quote(parent)
		}
		return &diag.Error{File: file, Line: line + bytes.Count(data[:at], []byte{'\n'}),
			Msg:  fmt.Sprintf("key %s given twice in one object%s (JSON readers disagree on which counts: ragstat takes neither)", diag.Quote(key), where),
			Hint: "give each key once"}
	}
}
