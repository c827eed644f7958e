package shard

import (
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/manifest"
	"github.com/ragstat/ragstat/judgments"
)

// Selection is the queries a command reads under --shard I/N and the
// record its partial result carries. A nil Selection reads every query.
type Selection struct {
	spec Spec
	part *manifest.Shard
}

// Select parses text ("I/N", Parse); "" selects every query and returns
// nil.
func Select(text string) (*Selection, error) {
	if text == "" {
		return nil, nil
	}
	s, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return &Selection{spec: s, part: &manifest.Shard{Index: s.Index, Count: s.Count, Hash: Hash}}, nil
}

// Keep reports whether a query is in the shard; nil for every query.
func (s *Selection) Keep() func(query string) bool {
	if s == nil {
		return nil
	}
	return s.spec.Has
}

// Read makes files keep the shard's queries only, recording in Part
// each one's position among the judged queries as the judgments are read.
func (s *Selection) Read(files *eval.Files) {
	if s == nil {
		return
	}
	files.Keep = func(q *judgments.Set) func(string) bool {
		s.part.Positions = s.spec.Record(q.IDs()).Positions
		return s.spec.Has
	}
}

// Part is the record a partial result carries (the caller adds what it
// counts itself); nil for every query.
func (s *Selection) Part() *manifest.Shard {
	if s == nil {
		return nil
	}
	return s.part
}
