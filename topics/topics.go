// Package topics holds what a query asks for beyond its text: tags for
// slicing, whether it is answerable, the permission scopes and effective
// date it was asked under, its query family (for leak-free splits), the
// facts a complete answer needs with the items that support each, and
// reference answers. Topics are read strictly from JSON Lines, also as
// TREC RAG 2024 distributes them (nuggetizer's nuggets and assignments).
package topics

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/internal/sniff"
)

// Piece is one item of a supporting alternative, with the span of its text
// that carries the fact (empty when the whole item does).
type Piece struct {
	Item string `json:"item"`
	Span string `json:"span,omitempty"`
}

// Support is one alternative way to support a fact: every piece of it must
// be present. Most alternatives are a single item.
type Support []Piece

// Fact is one thing a complete answer needs. Importance, when given, is
// Vital or Okay, as TREC RAG's nuggets grade them.
type Fact struct {
	ID         string    `json:"id"`
	Text       string    `json:"text,omitempty"`
	Importance string    `json:"importance,omitempty"`
	Support    []Support `json:"support"`
}

// Topic is one query and everything known about what it needs.
type Topic struct {
	ID         string          `json:"id"`
	Text       string          `json:"text,omitempty"`
	Tags       []string        `json:"tags,omitempty"`
	Answerable bool            `json:"answerable"`
	Scopes     []string        `json:"scopes,omitempty"`
	AsOf       jsonin.Date     `json:"as_of,omitzero"`
	Family     string          `json:"family,omitempty"`
	Facts      []Fact          `json:"facts,omitempty"`
	Answers    []string        `json:"answers,omitempty"`
	Meta       json.RawMessage `json:"meta,omitempty"`
	Line       int             `json:"-"`
}

// Set is a topics file.
type Set struct {
	File   string
	Topics []*Topic
	byID   map[string]*Topic
}

// NewSet makes a set of ts, read from file; a later topic of an id
// replaces an earlier one.
func NewSet(file string, ts []*Topic) *Set {
	s := &Set{File: file, Topics: ts, byID: make(map[string]*Topic, len(ts))}
	for _, t := range ts {
		s.byID[t.ID] = t
	}
	return s
}

// Get returns the topic id, or nil.
func (s *Set) Get(id string) *Topic { return s.byID[id] }

// raw is the JSON shape of a topic as read, with pointers where absence
// matters.
type raw struct {
	ID         *string         `json:"id"`
	Text       string          `json:"text"`
	Tags       []string        `json:"tags"`
	Answerable *bool           `json:"answerable"`
	Scopes     []string        `json:"scopes"`
	AsOf       jsonin.Date     `json:"as_of"`
	Family     string          `json:"family"`
	Facts      []wireFact      `json:"facts"`
	Answers    []string        `json:"answers"`
	Meta       json.RawMessage `json:"meta"`
}

// Read reads a topics file, recognised by its first line: JSON Lines of
// Topic, tab-separated qid<TAB>query lines (MS MARCO, BEIR), or
// castorini/nuggetizer's nugget file (TREC RAG 2024: {"qid", "query",
// "nuggets": [{"text", "importance"}]} a line), whose nuggets are the
// required facts: fact i (from 1) has the id "i", the nugget's text and
// importance (Vital or Okay; "failed" is an error, as is a text empty or
// given twice) and the support Options.Assignments give it.
func Read(f *input.File) (*Set, error) { return ReadWith(f, Options{}) }

// Options say which topics a read keeps and what supports a nugget file's
// facts.
type Options struct {
	// Keep, when set, keeps only the topics whose id it accepts, so that
	// memory holds those alone; every line is still checked.
	Keep func(id string) bool
	// Assignments (ReadAssignments, from AssignmentsFile) support the
	// facts: each passage a retrieval assignment assigns Supported is an
	// alternative {Item: docid} of its query's fact with the nugget's
	// text; partial support gives none, answer assignments are passed
	// over. A query not in the topics, or a nugget whose text or
	// importance no fact of its query has, is an error naming the line.
	Assignments     []Assignment
	AssignmentsFile string
}

// ReadWith is Read under opt.
func ReadWith(f *input.File, opt Options) (*Set, error) {
	s := &Set{File: f.Name, byID: map[string]*Topic{}}
	_, err := Stream(f, opt, func(t *Topic, _ []byte) error { return s.add(f.Name, t) })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// add puts t, read at t.Line of file, in s: a second one of its id is an
// error naming both lines.
func (s *Set) add(file string, t *Topic) error {
	if old := s.byID[t.ID]; old != nil {
		return &diag.Error{File: file, Line: t.Line, Query: t.ID, Msg: fmt.Sprintf("topic repeated (also line %d)", old.Line)}
	}
	s.byID[t.ID] = t
	s.Topics = append(s.Topics, t)
	return nil
}

// Parser reads one line of a topics file.
type Parser func(data []byte) (*Topic, error)

// Stream reads a topics file as ReadWith does, checking every line, and
// hands each topic opt keeps to fn with its line's bytes, instead of
// holding them; fn's error counts as a problem of that line. Repeated ids
// are fn's to find. It returns the parser of the file's format, which
// reads a kept line's topic again (Line left 0), with its support.
func Stream(f *input.File, opt Options, fn func(t *Topic, data []byte) error) (Parser, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	head, err := f.Head(4096)
	if err != nil {
		return nil, err
	}
	parse := Parser(parseJSON)
	switch first := sniff.FirstLine(head); {
	case sniff.NuggetFile(head):
		parse = parseNuggets
	case len(first) > 0 && first[0] != '{' && first[0] != '[':
		parse = parseTSV
	}
	sup := newSupport(opt)
	err = jsonin.Lines(r, f.Name, f, func(line int, data []byte) error {
		t, err := parse(data)
		if err != nil {
			id := ""
			if t != nil {
				id = t.ID
			}
			return &diag.Error{File: f.Name, Line: line, Query: id, Msg: err.Error()}
		}
		t.Line = line
		if err := sup.give(t, f.Name); err != nil {
			return err
		}
		if opt.Keep != nil && !opt.Keep(t.ID) {
			return nil
		}
		return fn(t, data)
	})
	if err == nil {
		err = sup.unread(f.Name)
	}
	return sup.parser(parse), err
}

// parseTSV reads a line of the tab-separated topics TREC collections ship
// (MS MARCO's queries.tsv, BEIR's exports): qid<TAB>query text.
func parseTSV(data []byte) (*Topic, error) {
	id, text, ok := strings.Cut(strings.TrimRight(string(data), "\r"), "\t")
	switch {
	case !ok:
		return nil, fmt.Errorf("no tab: a tab-separated topics line is qid<TAB>query text (or give JSON Lines, one {\"id\",\"text\"} a line)")
	case strings.TrimSpace(id) == "":
		return nil, fmt.Errorf("empty query id before the tab")
	}
	return &Topic{ID: id, Text: text, Answerable: true}, nil
}

// parseJSON reads a JSON Lines topic.
func parseJSON(data []byte) (*Topic, error) { return parseWith(data, jsonin.DecodeSame) }

// parseWith is parseJSON decoding the line with decode.
func parseWith(data []byte, decode func([]byte, any) error) (*Topic, error) {
	var v raw
	if err := decode(data, &v); err != nil {
		return nil, err
	}
	if v.ID == nil || strings.TrimSpace(*v.ID) == "" {
		return nil, fmt.Errorf(`missing or empty "id"`)
	}
	t := &Topic{ID: *v.ID, Text: v.Text, Tags: v.Tags, Answerable: v.Answerable == nil || *v.Answerable,
		Scopes: v.Scopes, AsOf: v.AsOf, Family: v.Family, Answers: v.Answers, Meta: v.Meta}
	seen := map[string]bool{}
	for i, rf := range v.Facts {
		f, err := fact(rf)
		if err != nil {
			return t, fmt.Errorf("fact %d: %v", i+1, err)
		}
		if seen[f.ID] {
			return t, fmt.Errorf("fact %q repeated", f.ID)
		}
		seen[f.ID] = true
		t.Facts = append(t.Facts, f)
	}
	if !t.Answerable && len(t.Facts) > 0 {
		return t, fmt.Errorf("an unanswerable topic cannot require facts")
	}
	return t, nil
}

func fact(rf wireFact) (Fact, error) {
	f := Fact{ID: rf.ID, Text: rf.Text, Importance: rf.Importance}
	if strings.TrimSpace(f.ID) == "" {
		return f, fmt.Errorf(`missing or empty "id"`)
	}
	if f.Importance != "" && f.Importance != Vital && f.Importance != Okay {
		return f, fmt.Errorf("fact %q: importance %q is neither %q nor %q", f.ID, f.Importance, Vital, Okay)
	}
	if rf.Support == nil {
		return f, fmt.Errorf(`fact %q has no support: name the items that support it ("support": [] when none is known)`, f.ID)
	}
	for _, rs := range rf.Support {
		var alt Support
		switch {
		case rs.All != nil && rs.Item != "":
			return f, fmt.Errorf(`fact %q: a support is either {"item":..} or {"all":[..]}, not both`, f.ID)
		case rs.All != nil:
			alt = rs.All
		default:
			alt = Support{{Item: rs.Item, Span: rs.Span}}
		}
		for _, p := range alt {
			if strings.TrimSpace(p.Item) == "" {
				return f, fmt.Errorf("fact %q: a support names no item", f.ID)
			}
		}
		f.Support = append(f.Support, alt)
	}
	return f, nil
}
