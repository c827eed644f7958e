// Package chunks says where every retrievable item sits in its source: a
// chunk file maps each item id to a span of code points in one revision of
// one document, and a documents file holds the texts of those revisions.
// Both are JSON Lines read strictly (unknown fields are errors, except under
// "meta"); Check verifies that every chunk lies inside its document and, when
// the chunk carries its text, that the text is the slice it names.
package chunks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// Chunk is one item: the code points [Start, End) of a document revision.
type Chunk struct {
	ID       string
	Doc      string
	Revision string
	Start    int
	End      int
	Text     *string // the item's text, when the file gives it
	Meta     json.RawMessage
	Line     int // where it was read; chunks are in file order, so lines order them
}

// Len is the chunk's length in code points.
func (c *Chunk) Len() int { return c.End - c.Start }

// Set is one chunk file.
type Set struct {
	File   string
	Chunks []*Chunk // in file order
	byID   map[string]*Chunk
}

// Get returns the chunk id, or nil.
func (s *Set) Get(id string) *Chunk { return s.byID[id] }

type rawChunk struct {
	ID       *string         `json:"id"`
	Doc      *string         `json:"doc"`
	Revision *string         `json:"revision"`
	Start    *int            `json:"start"`
	End      *int            `json:"end"`
	Text     *string         `json:"text"`
	Meta     json.RawMessage `json:"meta"`
}

// Read reads a chunk file. Problems are gathered (up to diag.Max) and
// returned together.
func Read(f *input.File) (*Set, error) {
	s := &Set{File: f.Name, byID: map[string]*Chunk{}}
	err := readLines(f, func(line int, data []byte) error {
		c, err := parseChunk(data)
		if err != nil {
			e := &diag.Error{File: f.Name, Line: line, Msg: err.Error(),
				Hint: `write {"id":"policy#2","doc":"refund-policy","revision":"2026-03","start":1200,"end":1750}`}
			if c != nil {
				e.Item = c.ID
			}
			return e
		}
		c.Line = line
		if old := s.byID[c.ID]; old != nil {
			return &diag.Error{File: f.Name, Line: line, Item: c.ID,
				Msg: fmt.Sprintf("chunk repeated (also line %d)", old.Line), Hint: "every chunk id appears once"}
		}
		s.byID[c.ID] = c
		s.Chunks = append(s.Chunks, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// readLines opens f and calls fn with every JSON line; a file with no line
// is an error.
func readLines(f *input.File, fn func(line int, data []byte) error) error {
	n := 0
	err := jsonin.FileLines(f, f.Name, func(line int, data []byte) error {
		n++
		return fn(line, data)
	})
	if err == nil && n == 0 {
		err = &diag.Error{File: f.Name, Msg: "no lines found", Hint: "give one JSON object a line"}
	}
	return err
}

func parseChunk(data []byte) (*Chunk, error) {
	var v rawChunk
	if err := jsonin.Decode(data, &v); err != nil {
		return nil, err
	}
	if err := required(map[string]*string{"id": v.ID, "doc": v.Doc, "revision": v.Revision}); err != nil {
		return nil, err
	}
	c := &Chunk{ID: *v.ID, Doc: *v.Doc, Revision: *v.Revision, Text: v.Text, Meta: v.Meta}
	switch {
	case v.Start == nil || v.End == nil:
		return c, fmt.Errorf(`missing "start" or "end": give the chunk's code-point offsets`)
	case *v.Start < 0:
		return c, fmt.Errorf("start %d is negative", *v.Start)
	case *v.Start >= *v.End:
		return c, fmt.Errorf("start %d is not before end %d: a chunk holds at least one code point", *v.Start, *v.End)
	}
	c.Start, c.End = *v.Start, *v.End
	return c, nil
}

// required checks that every named string is present and not blank, in a
// fixed order so the message does not depend on map iteration.
func required(fields map[string]*string) error {
	for _, name := range []string{"id", "doc", "revision", "text"} {
		if p, ok := fields[name]; ok && (p == nil || strings.TrimSpace(*p) == "") {
			return fmt.Errorf("missing or empty %q", name)
		}
	}
	return nil
}
