package pieces

import (
	"unicode"
	"unicode/utf8"
)

// class is a set of the split patterns' character classes a character
// belongs to. Below U+0100 it comes from a table; above, from the unicode
// package.
type class uint16

const (
	cLetter   class = 1 << iota // \p{L}
	cNumber                     // \p{N}
	cSpace                      // \s: the White_Space property
	cUpperish                   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLowerish                   // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cCRLF                       // [\r\n]
	cSlash                      // /
	cSymbol                     // [^\s\p{L}\p{N}]
	cPrefix                     // [^\r\n\p{L}\p{N}]
)

var latin1 [256]class

func init() {
	for r := range rune(256) {
		latin1[r] = classify(r)
	}
}

func classify(r rune) class {
	var c class
	if unicode.IsLetter(r) {
		c |= cLetter
	}
	if unicode.IsNumber(r) {
		c |= cNumber
	}
	if unicode.IsSpace(r) {
		c |= cSpace
	}
	mark := unicode.IsMark(r)
	if mark || unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) {
		c |= cUpperish
	}
	if mark || unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) {
		c |= cLowerish
	}
	if r == '\r' || r == '\n' {
		c |= cCRLF
	}
	if r == '/' {
		c |= cSlash
	}
	if c&(cSpace|cLetter|cNumber) == 0 {
		c |= cSymbol
	}
	if c&(cCRLF|cLetter|cNumber) == 0 {
		c |= cPrefix
	}
	return c
}

// at is the class of the character at i and its length in bytes; an
// invalid byte reads as U+FFFD, the end of s as no class.
func at(s string, i int) (class, int) {
	if i >= len(s) {
		return 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return latin1[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classify(r), n
}
