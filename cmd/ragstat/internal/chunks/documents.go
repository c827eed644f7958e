package chunks

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// Document is the text of one revision of one document. Offsets are in
// Unicode code points, as in chunk files.
type Document struct {
	Doc      string
	Revision string
	Text     string
	Meta     json.RawMessage
	Line     int
	bytes    []int // byte offset of every code point, nil when the text is ASCII
}

func newDocument(doc, revision, text string) *Document {
	d := &Document{Doc: doc, Revision: revision, Text: text}
	if n := utf8.RuneCountInString(text); n != len(text) {
		d.bytes = make([]int, 0, n)
		for i := range text {
			d.bytes = append(d.bytes, i)
		}
	}
	return d
}

// Len is the number of code points.
func (d *Document) Len() int {
	if d.bytes == nil {
		return len(d.Text)
	}
	return len(d.bytes)
}

// byteAt is the byte offset of code point i (0 <= i <= Len).
func (d *Document) byteAt(i int) int {
	switch {
	case d.bytes == nil:
		return i
	case i == len(d.bytes):
		return len(d.Text)
	}
	return d.bytes[i]
}

// pointAt is the code point that starts at byte offset b.
func (d *Document) pointAt(b int) int {
	if d.bytes == nil {
		return b
	}
	return sort.SearchInts(d.bytes, b)
}

// Slice is the text of code points [start, end); the caller keeps
// 0 <= start <= end <= Len.
func (d *Document) Slice(start, end int) string {
	return d.Text[d.byteAt(start):d.byteAt(end)]
}

// Find returns the code-point offset of every occurrence of s that lies
// wholly within [start, end), overlapping occurrences included.
func (d *Document) Find(s string, start, end int) []int {
	if s == "" {
		return nil
	}
	lo, hi := d.byteAt(start), d.byteAt(end)
	var at []int
	for i := lo; i < hi; {
		k := strings.Index(d.Text[i:hi], s)
		if k < 0 {
			break
		}
		at = append(at, d.pointAt(i+k))
		_, size := utf8.DecodeRuneInString(d.Text[i+k:])
		i += k + size
	}
	return at
}

// Documents is one documents file: texts by document and revision.
type Documents struct {
	File  string
	byKey map[key]*Document
}

type key struct{ doc, revision string }

// Get returns the text of doc at revision, or nil.
func (ds *Documents) Get(doc, revision string) *Document { return ds.byKey[key{doc, revision}] }

type rawDocument struct {
	Doc      *string         `json:"doc"`
	Revision *string         `json:"revision"`
	Text     *string         `json:"text"`
	Meta     json.RawMessage `json:"meta"`
}

// ReadDocuments reads a documents file. Problems are gathered (up to
// diag.Max) and returned together.
func ReadDocuments(f *input.File) (*Documents, error) {
	ds := &Documents{File: f.Name, byKey: map[key]*Document{}}
	err := readLines(f, func(line int, data []byte) error {
		var v rawDocument
		err := jsonin.Decode(data, &v)
		if err == nil {
			err = required(map[string]*string{"doc": v.Doc, "revision": v.Revision, "text": v.Text})
		}
		if err != nil {
			return &diag.Error{File: f.Name, Line: line, Msg: err.Error(),
				Hint: `write {"doc":"refund-policy","revision":"2026-03","text":"..."}`}
		}
		k := key{*v.Doc, *v.Revision}
		if old := ds.byKey[k]; old != nil {
			return &diag.Error{File: f.Name, Line: line, Item: k.doc,
				Msg: fmt.Sprintf("revision %q repeated (also line %d)", k.revision, old.Line), Hint: "give each revision of a document once"}
		}
		d := newDocument(k.doc, k.revision, *v.Text)
		d.Meta, d.Line = v.Meta, line
		ds.byKey[k] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// Check verifies every chunk of s against the documents: its revision is
// known, its offsets lie inside the text, and its text, when given, is the
// slice it names. Problems are gathered (up to diag.Max).
func Check(s *Set, ds *Documents) error {
	var errs diag.List
	for _, c := range s.Chunks {
		if msg, hint := check(c, ds); msg != "" {
			if errs.Add(&diag.Error{File: s.File, Line: c.Line, Item: c.ID, Msg: msg, Hint: hint}) {
				break
			}
		}
	}
	return errs.Err()
}

// check returns what is wrong with c, if anything, and what to do.
func check(c *Chunk, ds *Documents) (msg, hint string) {
	d := ds.Get(c.Doc, c.Revision)
	switch {
	case d == nil:
		return fmt.Sprintf("document %q revision %q is not in %s", c.Doc, c.Revision, ds.File),
			"add its text to the documents file, or fix the chunk's doc and revision"
	case c.End > d.Len():
		return fmt.Sprintf("end %d is past the end of %q revision %q (%d code points)", c.End, c.Doc, c.Revision, d.Len()),
			"offsets count Unicode code points, not bytes"
	case c.Text != nil && *c.Text != d.Slice(c.Start, c.End):
		return fmt.Sprintf("text differs from code points [%d, %d) of %q revision %q, which read %q",
				c.Start, c.End, c.Doc, c.Revision, abbreviate(d.Slice(c.Start, c.End))),
			"offsets count Unicode code points, not bytes; fix the offsets or the text"
	}
	return "", ""
}

// abbreviate shortens long text for a message.
func abbreviate(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "..."
}
