package hf

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"

	"github.com/ragstat/ragstat/tokenize/internal/pieces"
)

// span is a part of a string that a pattern matched or did not match.
type span struct {
	start, end int
	match      bool
}

// finder finds the non-overlapping matches of a pattern, leftmost first,
// as [start, end) byte offsets.
type finder interface {
	findAll(s string) [][2]int
}

// newFinder compiles a tokenizer.json pattern: {"String": ...} is literal
// text, {"Regex": ...} a regular expression.
func newFinder(p *patternJSON) (finder, error) {
	switch {
	case p == nil || p.String == nil && p.Regex == nil:
		return nil, fmt.Errorf("pattern needs String or Regex")
	case p.String != nil:
		return literal(*p.String), nil
	}
	if sc, ok := pieces.For(*p.Regex); ok {
		return scanner(sc), nil
	}
	re, err := regexp2.Compile(*p.Regex, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", *p.Regex, err)
	}
	return regex{re}, nil
}

// literal matches a fixed string; the empty string matches nothing.
type literal string

func (l literal) findAll(s string) [][2]int {
	var out [][2]int
	if l == "" {
		return nil
	}
	for i := 0; ; {
		j := strings.Index(s[i:], string(l))
		if j < 0 {
			return out
		}
		out = append(out, [2]int{i + j, i + j + len(l)})
		i += j + len(l)
	}
}

// scanner matches a split pattern with its hand-written scanner.
type scanner pieces.Scanner

func (sc scanner) findAll(s string) [][2]int {
	var out [][2]int
	pieces.Scanner(sc).Each(s, func(p string) bool {
		start := 0
		if len(out) > 0 {
			start = out[len(out)-1][1]
		}
		out = append(out, [2]int{start, start + len(p)})
		return true
	})
	return out
}

// regex matches any other regular expression.
type regex struct{ re *regexp2.Regexp }

func (r regex) findAll(s string) [][2]int {
	runes := []rune(s)
	offsets := make([]int, len(runes)+1)
	for i, pos := 0, 0; i < len(runes); i++ {
		pos += utf8.RuneLen(runes[i])
		offsets[i+1] = pos
	}
	var out [][2]int
	m, _ := r.re.FindRunesMatch(runes)
	for m != nil {
		out = append(out, [2]int{offsets[m.Index], offsets[m.Index+m.Length]})
		m, _ = r.re.FindNextMatch(m)
	}
	return out
}

// spansOf turns matches into spans covering all of s.
func spansOf(s string, matches [][2]int) []span {
	var out []span
	prev := 0
	for _, m := range matches {
		if m[0] > prev {
			out = append(out, span{prev, m[0], false})
		}
		out = append(out, span{m[0], m[1], true})
		prev = m[1]
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// charSpans makes every character for which in holds a match of its own.
func charSpans(s string, in func(rune) bool) []span {
	var out []span
	prev := 0
	for i, r := range s {
		if !in(r) {
			continue
		}
		if i > prev {
			out = append(out, span{prev, i, false})
		}
		prev = i + utf8.RuneLen(r)
		out = append(out, span{i, prev, true})
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// behavior is what a split does with the matches (SplitDelimiterBehavior).
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

var behaviors = map[string]behavior{
	"Removed": removed, "Isolated": isolated, "MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext": mergedWithNext, "Contiguous": contiguous,
}

// cut splits p at the spans as behavior says; empty parts are dropped.
func cut(p piece, spans []span, b behavior) []piece {
	var parts []span
	switch b {
	case removed:
		for _, sp := range spans {
			if !sp.match {
				parts = append(parts, sp)
			}
		}
	case isolated:
		parts = spans
	case contiguous:
		parts = merge(spans, func(prev, cur span) bool { return prev.match == cur.match })
	case mergedWithPrevious:
		parts = merge(spans, func(prev, cur span) bool { return cur.match && !prev.match })
	case mergedWithNext:
		parts = merge(spans, func(prev, cur span) bool { return prev.match && !cur.match })
	}
	out := make([]piece, 0, len(parts))
	for _, sp := range parts {
		if sp.end > sp.start {
			out = append(out, piece{text: p.text[sp.start:sp.end], atStart: p.atStart && sp.start == 0})
		}
	}
	return out
}

// merge joins each span to the one before it when join(before, span).
// The first span's predecessor counts as a non-match.
func merge(spans []span, join func(prev, cur span) bool) []span {
	var out []span
	prev := span{match: false}
	for _, sp := range spans {
		if len(out) > 0 && join(prev, sp) {
			out[len(out)-1].end = sp.end
		} else {
			out = append(out, sp)
		}
		prev = sp
	}
	return out
}
