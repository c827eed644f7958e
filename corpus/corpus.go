// Package corpus holds what is known about each retrievable item: the
// document and revision it comes from, the permission scope it belongs to,
// the dates it is effective, and its text. Evidence validity (scope,
// staleness, conflicting revisions) and token counts read it.
package corpus

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/internal/sniff"
)

// Meta is an item's metadata. A corpus line and a trace item both carry it.
type Meta struct {
	Doc       string      `json:"doc,omitempty"`
	Revision  string      `json:"revision,omitempty"`
	Scope     string      `json:"scope,omitempty"` // empty: visible to every query
	ValidFrom jsonin.Date `json:"valid_from,omitzero"`
	ValidTo   jsonin.Date `json:"valid_to,omitzero"`
}

// Known reports whether any metadata is given.
func (m Meta) Known() bool {
	return m.Doc != "" || m.Revision != "" || m.Scope != "" || !m.ValidFrom.IsZero() || !m.ValidTo.IsZero()
}

// Merge fills what m lacks from other.
func (m Meta) Merge(other Meta) Meta {
	if m.Doc == "" {
		m.Doc = other.Doc
	}
	if m.Revision == "" {
		m.Revision = other.Revision
	}
	if m.Scope == "" {
		m.Scope = other.Scope
	}
	if m.ValidFrom.IsZero() {
		m.ValidFrom = other.ValidFrom
	}
	if m.ValidTo.IsZero() {
		m.ValidTo = other.ValidTo
	}
	return m
}

// Validity reports whether an item with this metadata is out of a query's
// permission scopes (an item with no scope is visible to every query), or
// not in effect at the query's date: in effect when valid_from <= asOf <
// valid_to. A query with no scopes or no date checks neither.
func (m Meta) Validity(scopes []string, asOf time.Time) (outOfScope, stale bool) {
	outOfScope = len(scopes) > 0 && m.Scope != "" && !slices.Contains(scopes, m.Scope)
	if !asOf.IsZero() {
		stale = !m.ValidFrom.IsZero() && m.ValidFrom.After(asOf) || !m.ValidTo.IsZero() && !m.ValidTo.After(asOf)
	}
	return outOfScope, stale
}

// Item is one retrievable unit.
type Item struct {
	ID string `json:"id"`
	Meta
	Text    string          `json:"text,omitempty"`
	HasText bool            `json:"-"`
	Extra   json.RawMessage `json:"meta,omitempty"`
	Line    int             `json:"-"`
}

// Corpus is a corpus file.
type Corpus struct {
	File  string
	Items []*Item
	byID  map[string]*Item
}

// Get returns item id, or nil.
func (c *Corpus) Get(id string) *Item {
	if c == nil {
		return nil
	}
	return c.byID[id]
}

type raw struct {
	ID *string `json:"id"`
	Meta
	Text  *string         `json:"text"`
	Extra json.RawMessage `json:"meta"`
}

// Read reads a corpus file (JSON Lines).
func Read(f *input.File) (*Corpus, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if head, err := f.Head(4096); err == nil {
		keys := sniff.FirstKeys(head)
		for _, k := range []string{"facts", "answerable", "family", "tags"} {
			if _, ok := keys[k]; ok {
				return nil, &diag.Error{File: f.Name, Line: 1, Msg: fmt.Sprintf("looks like a topics file (it has %q), not a corpus", k),
					Hint: "did you give the topics as {corpus}?"}
			}
		}
	}
	c := &Corpus{File: f.Name, byID: map[string]*Item{}}
	err = jsonin.LinesInto(r, f.Name, f, jsonin.DocumentLine, func() []byte { return nil }, func(line int, data []byte) error {
		var v raw
		if err := jsonin.Decode(data, &v); err != nil {
			return &diag.Error{File: f.Name, Line: line, Msg: err.Error()}
		}
		if v.ID == nil || strings.TrimSpace(*v.ID) == "" {
			return &diag.Error{File: f.Name, Line: line, Msg: `missing or empty "id"`}
		}
		it := &Item{ID: *v.ID, Meta: v.Meta, Extra: v.Extra, Line: line}
		if v.Text != nil {
			it.Text, it.HasText = *v.Text, true
		}
		if !it.ValidTo.IsZero() && !it.ValidFrom.IsZero() && !it.ValidTo.After(it.ValidFrom.Time) {
			return &diag.Error{File: f.Name, Line: line, Item: it.ID, Msg: fmt.Sprintf("valid_to %s is not after valid_from %s", it.ValidTo, it.ValidFrom)}
		}
		if old := c.byID[it.ID]; old != nil {
			return &diag.Error{File: f.Name, Line: line, Item: it.ID, Msg: fmt.Sprintf("item repeated (also line %d)", old.Line)}
		}
		c.byID[it.ID] = it
		c.Items = append(c.Items, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}
