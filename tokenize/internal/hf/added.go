package hf

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// addedToken is an entry of a tokenizer.json's added_tokens.
type addedToken struct {
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedVocab finds added tokens in text before it is normalized (tokens
// with normalized false) and after (tokens with normalized true, matched by
// their normalized form), as Hugging Face's AddedVocabulary does.
type addedVocab struct {
	raw, normalized matcher
}

// segment is a part of the text: an added token (id >= 0) or text for the
// pre-tokenizer and model (id -1).
type segment struct {
	piece
	id int
}

// newAddedVocab gives ids to the tokens as Hugging Face does when it loads
// a file: a token in the model's vocabulary keeps its id there; the others
// are numbered from the vocabulary's size up, in order. (The ids written in
// the file are not read.)
func newAddedVocab(tokens []addedToken, m model, n normalizer) *addedVocab {
	ids := map[string]int{}
	byID := map[int]addedToken{}
	next := m.size()
	for _, t := range tokens {
		if t.Content == "" {
			continue
		}
		id, ok := ids[t.Content]
		if !ok {
			if id, ok = m.id(t.Content); !ok {
				id, next = next, next+1
			}
		}
		ids[t.Content] = id
		byID[id] = t
	}
	v := &addedVocab{raw: matcher{empty: true}, normalized: matcher{empty: true}}
	for id, t := range byID {
		entry := matchEntry{addedToken: t, id: id, pattern: t.Content}
		if !t.Normalized {
			v.raw.add(entry)
			continue
		}
		if n != nil {
			entry.pattern = n.normalize(piece{text: t.Content, atStart: true}).text
		}
		v.normalized.add(entry)
	}
	return v
}

// extract splits text into added tokens and normalized text.
func (v *addedVocab) extract(text string, n normalizer) []segment {
	var out []segment
	for _, seg := range v.raw.split(piece{text: text, atStart: true}) {
		if seg.id >= 0 {
			out = append(out, seg)
			continue
		}
		p := seg.piece
		if n != nil {
			p = n.normalize(p)
		}
		out = append(out, v.normalized.split(p)...)
	}
	return out
}

// matchEntry is an added token with its id and the text that matches it.
type matchEntry struct {
	addedToken
	id      int
	pattern string
}

// matcher finds the leftmost-longest occurrences of a set of added tokens.
type matcher struct {
	byFirst [256][]matchEntry // by first byte, longest pattern first
	empty   bool              // no tokens at all
}

func (m *matcher) add(e matchEntry) {
	if e.pattern == "" {
		return
	}
	es := append(m.byFirst[e.pattern[0]], e)
	slices.SortStableFunc(es, func(a, b matchEntry) int { return len(b.pattern) - len(a.pattern) })
	m.byFirst[e.pattern[0]] = es
	m.empty = false
}

// longest returns the longest token that starts at byte i of s.
func (m *matcher) longest(s string, i int) (matchEntry, bool) {
	for _, e := range m.byFirst[s[i]] {
		if strings.HasPrefix(s[i:], e.pattern) {
			return e, true
		}
	}
	return matchEntry{}, false
}

// split cuts p at the added tokens it holds. Matches do not overlap; a
// single_word token that touches a word character is left as text, and
// lstrip and rstrip tokens take the whitespace beside them.
func (m *matcher) split(p piece) []segment {
	s := p.text
	if s == "" {
		return nil
	}
	if m.empty {
		return []segment{{piece: p, id: -1}}
	}
	var out []segment
	emitText := func(from, to int) {
		if from < to {
			out = append(out, segment{piece: piece{text: s[from:to], atStart: p.atStart && from == 0}, id: -1})
		}
	}
	done := 0
	for i := 0; i < len(s); {
		e, ok := m.longest(s, i)
		if !ok {
			i++
			continue
		}
		start, stop := i, i+len(e.pattern)
		i = stop
		if e.SingleWord && (start > 0 && endsWithWord(s[:start]) || stop < len(s) && startsWithWord(s[stop:])) {
			continue
		}
		if e.LStrip {
			start = max(len(strings.TrimRightFunc(s[:start], isSpace)), done)
		}
		if e.RStrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], isSpace))
			i = max(i, stop)
		}
		emitText(done, start)
		out = append(out, segment{piece: piece{text: s[max(start, done):stop]}, id: e.id})
		done = stop
	}
	emitText(done, len(s))
	return out
}

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordChar(r)
}
