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
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/gather"
)

// DocumentLine is the floor of the line limit of the readers whose
// records are documents (a corpus, traces): at least this long a line is
// read, whatever the file's Config says (input.File.MaxLine).
const DocumentLine = 64 << 20

// Source is what Lines reads (an input.File): its line limit, at least
// floor, and what becomes of a last line torn by a writer that stopped
// mid-line (an error, or nil once it is reported as a warning).
type Source interface {
	MaxLine(floor int) int
	Torn(line, complete int) error
}

// A File is a Source that opens its content from the start.
type File interface {
	Source
	Open() (io.ReadCloser, error)
}

// FileLines opens f, named name, and calls fn with every line of it, as
// Lines does.
func FileLines(f File, name string, fn func(line int, data []byte) error) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	return Lines(r, name, f, fn)
}

// Lines calls fn with every line of r, the content of f (named name),
// and its 1-based number. Blank lines are reported as errors, and a line
// longer than f.MaxLine(0); problems are gathered into a diag.List, and reading stops
// once it is full. A last line that ends the input without a newline, opens
// an object and is not valid JSON was torn by a writer that stopped mid-line: f.Torn says
// whether it is skipped with a warning or an error.
func Lines(r io.Reader, name string, f Source, fn func(line int, data []byte) error) error {
	return LinesInto(r, name, f, 0, func() []byte { return nil }, fn)
}

// LinesInto is Lines with lines of at least floor bytes, each read into
// the slice buf returns (nil for a new one), so that what fn is done with
// can be read into again.
func LinesInto(r io.Reader, name string, f Source, floor int, buf func() []byte, fn func(line int, data []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	limit := f.MaxLine(floor)
	var errs diag.List
	for n := 1; ; n++ {
		data, err := readLine(br, buf(), limit) // fn may keep data
		if len(data) == 0 && err == io.EOF {
			break
		}
		if err == errLong {
			errs.Add(&diag.Error{File: name, Line: n, Msg: fmt.Sprintf("line longer than %s: not JSON Lines (binary or compressed data?)", diag.Size(int64(limit))),
				Hint: "raise {max_line} if such lines are meant"})
			break
		}
		if err != nil && err != io.EOF {
			errs.Add(err)
			break
		}
		torn := err == io.EOF && n > 1 && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && !json.Valid(data)
		data = bytes.TrimRight(data, "\r\n")
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			errs.Add(&diag.Error{File: name, Line: n, Msg: "blank line", Hint: "JSON Lines holds one object on every line"})
		case torn:
			errs.Add(f.Torn(n, n-1))
		default:
			errs.Add(fn(n, data))
		}
		if errs.Full() || err == io.EOF {
			break
		}
	}
	return errs.Err()
}

var errLong = errors.New("line too long")

// ReadLine returns the next line of br, newline included; it stops with an
// error past limit bytes.
func ReadLine(br *bufio.Reader, limit int) ([]byte, error) { return readLine(br, nil, limit) }

// readLine is ReadLine into buf[:0]. A line longer than br's buffer is
// gathered a buffer at a time (gather.Pieces), so a line past limit costs
// limit at most.
func readLine(br *bufio.Reader, buf []byte, limit int) ([]byte, error) {
	var long gather.Pieces
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case long.Len()+len(chunk) > limit:
			return nil, errLong
		case err == bufio.ErrBufferFull:
			long.Add(chunk)
			continue
		}
		return long.Join(buf, chunk), err
	}
}

// Decode unmarshals one JSON value into v, rejecting invalid UTF-8 (which
// encoding/json would turn into U+FFFD, so two ids could collide), a key
// given twice in one object (encoding/json keeps the last), unknown fields
// and anything after the value. Numbers are kept as json.Number where v asks.
func Decode(data []byte, v any) error {
	if err := checkText(data); err != nil {
		return err
	}
	if err := checkKeys(data); err != nil {
		return err
	}
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

// checkText refuses bytes that are not UTF-8.
func checkText(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	at := invalidAt(data)
	return fmt.Errorf("invalid UTF-8 at byte %d (%q): JSON text is UTF-8; convert the file (iconv -f LATIN1 -t UTF-8, say)", at+1, data[at:min(at+4, len(data))])
}

// invalidAt is the offset of the first byte that is not UTF-8.
func invalidAt(data []byte) int {
	at := 0
	for at < len(data) {
		r, n := utf8.DecodeRune(data[at:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		at += n
	}
	return at
}

// checkKeys reports a key given twice in one object, at any depth.
func checkKeys(data []byte) error {
	type level struct {
		keys      map[string]bool // nil for an array
		expectKey bool
	}
	var stack []level
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].expectKey = true
		}
	}
	d := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			return nil // the end, or a syntax error Decode reports
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, level{keys: map[string]bool{}, expectKey: true})
			case '[':
				stack = append(stack, level{})
			default:
				stack = stack[:top]
				valueDone()
			}
		case string:
			if top >= 0 && stack[top].keys != nil && stack[top].expectKey {
				if stack[top].keys[t] {
					return fmt.Errorf("key %s given twice in one object (JSON readers disagree on which counts: ragstat takes neither)", diag.Quote(t))
				}
				stack[top].keys[t] = true
				stack[top].expectKey = false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

func explain(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("expected a JSON object, found JSON %s", typ.Value)
	case errors.As(err, &typ):
		last := typ.Field[strings.LastIndexByte(typ.Field, '.')+1:]
		if typ.Value == "number" && typ.Type.Kind() == reflect.String && (last == "id" || last == "query" || last == "item") {
			return fmt.Errorf("field %q: ids must be strings: quote them (\"7\", not 7)", typ.Field)
		}
		return fmt.Errorf("field %q: expected %s, found JSON %s", typ.Field, describeType(typ.Type), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return fmt.Errorf("%s (strict: only documented fields are accepted)", strings.TrimPrefix(err.Error(), "json: "))
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// describeType names a Go type in the user's terms.
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if e := describeType(t.Elem()); strings.HasPrefix(e, "a") {
			return "a list of " + strings.TrimPrefix(strings.TrimPrefix(e, "a "), "an ") + "s"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return describeType(t.Elem())
	}
	return t.String()
}

// Nested walks a JSON object of objects, {"outer": {"inner": value}}, calling
// begin for every outer key (so an empty inner object is seen too) and fn for
// every inner value, each with the line it starts on. A repeated key, at
// either level, is an error: JSON decoders elsewhere keep the last one
// silently.
func Nested(data []byte, name string, begin func(outer string, line int), fn func(outer, inner string, value json.RawMessage, line int) error) error {
	if err := checkText(data); err != nil {
		line := 1 + bytes.Count(data[:invalidAt(data)], []byte{'\n'})
		return &diag.Error{File: name, Line: line, Msg: err.Error()}
	}
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

// strictV2 are the fast decoder's options: unknown fields, repeated keys
// and invalid UTF-8 are errors, as in Decode.
var strictV2 = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true), jsontext.AllowInvalidUTF8(false))

// DecodeFast is Decode, about three times as fast, and stricter: a key
// written in another case than documented is an error (Decode folds the
// case). v must
// hold no json.Number or interface values. A value the fast decoder refuses
// is decoded again by Decode, so every error Decode reports reads the same.
// unmarshalers, when not nil, decode some types the fast decoder's way in
// less time or memory; they must accept exactly what it accepts.
func DecodeFast(data []byte, v any, unmarshalers *jsonv2.Unmarshalers) error {
	opts := strictV2
	if unmarshalers != nil {
		opts = jsonv2.JoinOptions(strictV2, jsonv2.WithUnmarshalers(unmarshalers))
	}
	err := jsonv2.Unmarshal(data, v, opts)
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

// DecodeSame is Decode, several times as fast for a value the fast
// decoder accepts: it decodes data with the fast decoder first and, when
// that refuses it (a key in another case, a null Decode reads otherwise,
// any error), with Decode into v made zero again, so that every value and
// error is Decode's. Only for types whose every value the two decoders
// read alike (no json.Number, no interface values), which the caller's
// fuzz test checks.
func DecodeSame(data []byte, v any) error {
	if jsonv2.Unmarshal(data, v, strictV2) == nil {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	return Decode(data, v)
}

// ID is an id field of a JSON input as written: a string, or a JSON number
// (pandas' to_json writes integer ids as numbers), kept as its text so that
// an integer converts exactly. Value decides whether a number is accepted.
type ID struct {
	s      string
	number string // the number as written, when the id was one
}

// StringID is the ID a JSON string holding s decodes to.
func StringID(s string) *ID { return &ID{s: s} }

// UnmarshalJSON keeps a string or a number; any other JSON value is a type
// error naming the field, as for a plain string field.
func (id *ID) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		id.number = ""
		return json.Unmarshal(b, &id.s)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		id.s, id.number = "", string(b)
		return nil
	}
	what := "object"
	switch {
	case len(b) == 0 || b[0] == 'n':
		what = "null"
	case b[0] == '[':
		what = "array"
	case b[0] == 't' || b[0] == 'f':
		what = "bool"
	}
	return &json.UnmarshalTypeError{Value: what, Type: reflect.TypeFor[string]()}
}

// Value is the id as a string. A number is an error naming field unless
// numeric is set; then an integer becomes its digits as written (7 is "7")
// and any other number (7.5, 1e3, -0) stays an error, since which string
// it stands for is a guess.
func (id ID) Value(field string, numeric bool) (string, error) {
	if id.number == "" {
		return id.s, nil
	}
	n := id.number
	if len(n) > diag.MaxEcho {
		n = diag.Quote(n)
	}
	switch {
	case !numeric:
		return "", &diag.OptionError{Msg: diag.Literal(fmt.Sprintf("field %q: ids must be strings: quote them (\"%s\", not %s), or pass ", field, n, n)) + "{numeric_ids}"}
	case !isInteger(id.number):
		return "", fmt.Errorf("field %q: id %s is a number but not an integer, so which string it stands for is ambiguous: quote it", field, n)
	}
	return id.number, nil
}

// isInteger reports a JSON number written as an integer, -0 excepted.
func isInteger(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits == "0" && s != digits || len(digits) > 1 && digits[0] == '0' {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// DecodeResult reads a saved result of kind ("eval", "stages",
// "compare") from the file name, whose content read returns, into doc,
// strictly:
// an unknown field or a value of the wrong type is an error naming the
// file, and so is a document whose manifest's kind (as kindOf finds it once
// doc is filled; "" when it has none) is not kind.
func DecodeResult(name string, read func() ([]byte, error), kind string, doc any, kindOf func() string) error {
	data, err := read()
	if err != nil {
		return err
	}
	if err := Decode(data, doc); err != nil {
		return &diag.Error{File: name, Msg: err.Error(), Hint: "give a file written by ragstat " + kind + " {format} json"}
	}
	if kindOf() != kind {
		return &diag.Error{File: name, Msg: fmt.Sprintf("not a ragstat %s result: no %s manifest", kind, kind),
			Hint: "write it with ragstat " + kind + " {format} json"}
	}
	return nil
}
