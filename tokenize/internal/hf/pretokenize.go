package hf

import (
	"strings"
	"unicode/utf8"

	"github.com/ragstat/ragstat/tokenize/internal/pieces"
)

// preTokenizers applies pre-tokenizers in order (Sequence).
type preTokenizers []preTokenizer

func (ps preTokenizers) preTokenize(words []piece) []piece {
	for _, p := range ps {
		words = p.preTokenize(words)
	}
	return words
}

// eachPiece applies split to every piece.
func eachPiece(ps []piece, split func(piece) []piece) []piece {
	out := make([]piece, 0, len(ps))
	for _, p := range ps {
		out = append(out, split(p)...)
	}
	return out
}

// charSplit splits at characters (Whitespace­Split, Punctuation, Digits,
// CharDelimiterSplit).
type charSplit struct {
	in       func(rune) bool
	behavior behavior
}

func (c charSplit) preTokenize(ps []piece) []piece {
	return eachPiece(ps, func(p piece) []piece { return cut(p, charSpans(p.text, c.in), c.behavior) })
}

// patternSplit is Split.
type patternSplit struct {
	pattern  finder
	behavior behavior
	invert   bool
}

func (sp patternSplit) preTokenize(ps []piece) []piece {
	return eachPiece(ps, func(p piece) []piece {
		spans := spansOf(p.text, sp.pattern.findAll(p.text))
		if sp.invert {
			for i := range spans {
				spans[i].match = !spans[i].match
			}
		}
		return cut(p, spans, sp.behavior)
	})
}

// bertPre is BertPreTokenizer: whitespace removed, punctuation isolated.
type bertPre struct{}

func (bertPre) preTokenize(ps []piece) []piece {
	ps = charSplit{isSpace, removed}.preTokenize(ps)
	return charSplit{isPunct, isolated}.preTokenize(ps)
}

// whitespace is Whitespace: the regular expression \w+|[^\w\s]+, keeping
// the matches and dropping what lies between them.
type whitespace struct{}

func (whitespace) preTokenize(ps []piece) []piece {
	return eachPiece(ps, func(p piece) []piece {
		var out []piece
		s := p.text
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if isSpace(r) {
				i += n
				continue
			}
			word := isWordChar(r)
			j := i + n
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if isSpace(r) || isWordChar(r) != word {
					break
				}
				j += n
			}
			out = append(out, piece{text: s[i:j], atStart: p.atStart && i == 0})
			i = j
		}
		return out
	})
}

// metaspace is Metaspace: spaces become the replacement character, which
// is prepended as prepend_scheme says and, with split, starts every word.
type metaspace struct {
	replacement string
	prepend     string // "always", "first" or "never"
	split       bool
}

func (m metaspace) preTokenize(ps []piece) []piece {
	return eachPiece(ps, func(p piece) []piece {
		p.text = strings.ReplaceAll(p.text, " ", m.replacement)
		if !strings.HasPrefix(p.text, m.replacement) && (m.prepend == "always" || m.prepend == "first" && p.atStart) {
			p.text = m.replacement + p.text
		}
		if !m.split {
			return []piece{p}
		}
		r, _ := utf8.DecodeRuneInString(m.replacement)
		return cut(p, charSpans(p.text, func(c rune) bool { return c == r }), mergedWithNext)
	})
}

// byteLevel is ByteLevel: an optional leading space, the GPT-2 split, and
// every byte written as the printable character GPT-2 uses for it.
type byteLevel struct {
	addPrefixSpace, useRegex bool
}

var gpt2Split, _ = pieces.For(pieces.GPT2)

func (b byteLevel) preTokenize(ps []piece) []piece {
	return eachPiece(ps, func(p piece) []piece {
		if b.addPrefixSpace && !strings.HasPrefix(p.text, " ") {
			p.text = " " + p.text
		}
		parts := []piece{p}
		if b.useRegex {
			parts = cut(p, spansOf(p.text, scanner(gpt2Split).findAll(p.text)), isolated)
		}
		for i := range parts {
			parts[i].text = byteLevelText(parts[i].text)
		}
		return parts
	})
}

// byteChars maps each byte to its GPT-2 character: printable Latin-1 bytes
// stand for themselves, the others for U+0100 onwards.
var byteChars = func() (t [256]string) {
	n := 0
	for b := range 256 {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b && b <= 0xFF {
			t[b] = string(rune(b))
		} else {
			t[b] = string(rune(256 + n))
			n++
		}
	}
	return t
}()

func byteLevelText(s string) string {
	var b strings.Builder
	b.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		b.WriteString(byteChars[s[i]])
	}
	return b.String()
}
