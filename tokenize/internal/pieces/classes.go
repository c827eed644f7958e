package pieces

import "unicode"

// Character classes of the split patterns. Below U+0100 they come from a
// table; above, from the unicode package.
const (
	cLetter   = 1 << iota // \p{L}
	cNumber               // \p{N}
	cSpace                // \s: the White_Space property
	cUpperish             // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLowerish             // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cCRLF                 // [\r\n]
	cSlash                // /
)

var latin1 [256]uint8

func init() {
	for r := range rune(256) {
		latin1[r] = classify(r)
	}
}

func classify(r rune) uint8 {
	var c uint8
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
	return c
}

func class(r rune) uint8 {
	if r >= 0 && r < 256 {
		return latin1[r]
	}
	if r < 0 {
		return 0
	}
	return classify(r)
}

func isLetter(r rune) bool    { return class(r)&cLetter != 0 }
func isNumber(r rune) bool    { return class(r)&cNumber != 0 }
func isSpace(r rune) bool     { return class(r)&cSpace != 0 }
func isUpperish(r rune) bool  { return class(r)&cUpperish != 0 }
func isLowerish(r rune) bool  { return class(r)&cLowerish != 0 }
func isCRLF(r rune) bool      { return class(r)&cCRLF != 0 }
func isCRLFSlash(r rune) bool { return class(r)&(cCRLF|cSlash) != 0 }

// isSymbol is [^\s\p{L}\p{N}].
func isSymbol(r rune) bool { return r >= 0 && class(r)&(cSpace|cLetter|cNumber) == 0 }

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(r rune) bool { return r >= 0 && class(r)&(cCRLF|cLetter|cNumber) == 0 }
