// Package jsonin reads the JSON shapes ragstat accepts strictly: JSON Lines
// (one object a line, unknown fields rejected) and two-level objects such as
// {"query": {"item": value}} (duplicate keys rejected), reporting the line of
// every problem.
package jsonin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragstat/ragstat/diag"
)

// Lines calls fn with every line of r and its 1-based number. Blank lines
// are reported as errors; problems are gathered into a diag.List, and
// reading stops once it is full.
func Lines(r io.Reader, name string, fn func(line int, data []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var errs diag.List
	for n := 1; ; n++ {
		data, err := br.ReadBytes('\n')
		if len(data) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			errs.Add(err)
			break
		}
		data = bytes.TrimRight(data, "\r\n")
		if len(bytes.TrimSpace(data)) == 0 {
			errs.Add(&diag.Error{File: name, Line: n, Msg: "blank line", Hint: "JSON Lines holds one object on every line"})
		} else {
			errs.Add(fn(n, data))
		}
		if errs.Full() || err == io.EOF {
			break
		}
	}
	return errs.Err()
}

// Decode unmarshals one JSON value into v, rejecting unknown fields and
// anything after the value. Numbers are kept as json.Number where v asks.
func Decode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return explain(err)
	}
	if d.More() {
		return errors.New("unexpected data after the JSON value")
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func explain(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.As(err, &typ):
		return fmt.Errorf("field %q: expected %s, found JSON %s", typ.Field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return fmt.Errorf("%s (strict: only documented fields are accepted)", strings.TrimPrefix(err.Error(), "json: "))
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// Nested walks a JSON object of objects, {"outer": {"inner": value}}, calling
// begin for every outer key (so an empty inner object is seen too) and fn for
// every inner value, each with the line it starts on. A repeated key, at
// either level, is an error: JSON decoders elsewhere keep the last one
// silently.
func Nested(data []byte, name string, begin func(outer string, line int), fn func(outer, inner string, value json.RawMessage, line int) error) error {
	w := walker{data: data, name: name, d: json.NewDecoder(bytes.NewReader(data))}
	w.d.UseNumber()
	if err := w.object("", func(outer string) error {
		begin(outer, w.line())
		return w.object(outer, func(inner string) error {
			line := w.line()
			var raw json.RawMessage
			if err := w.d.Decode(&raw); err != nil {
				return w.fail(explain(err))
			}
			w.errs.Add(fn(outer, inner, raw, line))
			return nil
		})
	}); err != nil && err != errFull {
		w.errs.Add(err)
		return w.errs.Err()
	} else if err == errFull {
		return w.errs.Err()
	}
	if _, err := w.d.Token(); err != io.EOF {
		w.errs.Add(w.fail(errors.New("unexpected data after the JSON object")))
	}
	return w.errs.Err()
}

// errFull stops the walk once enough problems are gathered.
var errFull = errors.New("too many problems")

type walker struct {
	data []byte
	name string
	d    *json.Decoder
	errs diag.List
}

// line is the line of the next value, counting from the decoder's offset.
func (w *walker) line() int {
	off := int(w.d.InputOffset())
	rest := w.data[off:]
	skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n:,"))
	return 1 + bytes.Count(w.data[:off+skip], []byte{'\n'})
}

func (w *walker) fail(err error) error {
	return &diag.Error{File: w.name, Line: w.line(), Msg: err.Error()}
}

// object reads one object, calling each for every key; inside is the key of
// the enclosing object, for messages.
func (w *walker) object(inside string, each func(key string) error) error {
	tok, err := w.d.Token()
	if err != nil {
		return w.fail(explain(err))
	}
	if tok != json.Delim('{') {
		what := "the file"
		if inside != "" {
			what = fmt.Sprintf("the value of %q", inside)
		}
		return w.fail(fmt.Errorf("%s must be a JSON object, found %v", what, describe(tok)))
	}
	seen := map[string]int{}
	for w.d.More() {
		line := w.line()
		tok, err := w.d.Token()
		if err != nil {
			return w.fail(explain(err))
		}
		key := tok.(string)
		if first, dup := seen[key]; dup {
			w.errs.Add(&diag.Error{File: w.name, Line: line, Query: inside, Msg: fmt.Sprintf("repeated key %q (first on line %d)", key, first), Hint: "each key may appear once"})
		}
		seen[key] = line
		if err := each(key); err != nil {
			return err
		}
		if w.errs.Full() {
			return errFull
		}
	}
	_, err = w.d.Token()
	return err
}

func describe(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", tok)
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// strictV2 are the fast decoder's options: unknown fields and repeated keys
// are errors; invalid UTF-8 is replaced as Decode does.
var strictV2 = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true), jsontext.AllowInvalidUTF8(true))

// DecodeFast is Decode, about three times as fast, and stricter: a key
// repeated within an object, or written in another case than documented, is
// an error (Decode keeps the last one, or folds the case, silently). v must
// hold no json.Number or interface values. A value the fast decoder refuses
// is decoded again by Decode, so every error Decode reports reads the same.
func DecodeFast(data []byte, v any) error {
	err := jsonv2.Unmarshal(data, v, strictV2)
	if err == nil {
		return nil
	}
	fresh := reflect.New(reflect.TypeOf(v).Elem()).Interface()
	if slow := Decode(data, fresh); slow != nil {
		return slow
	}
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "json: "), "jsontext: ")
	return fmt.Errorf("invalid JSON: %s (strict: each documented key once, spelt as documented)", msg)
}
