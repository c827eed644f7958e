package hf

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizers applies normalizers in order (Sequence).
type normalizers []normalizer

func (ns normalizers) normalize(p piece) piece {
	for _, n := range ns {
		p = n.normalize(p)
	}
	return p
}

// unicodeForm is NFC, NFD, NFKC or NFKD.
type unicodeForm struct{ form norm.Form }

func (u unicodeForm) normalize(p piece) piece {
	p.text = u.form.String(p.text)
	return p
}

// lowercase is Lowercase: Rust's char::to_lowercase, which differs from
// Go's simple mapping only for U+0130.
type lowercase struct{}

func (lowercase) normalize(p piece) piece {
	p.text = toLower(p.text)
	return p
}

func toLower(s string) string {
	return strings.Map(unicode.ToLower, strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// strip is Strip: whitespace removed from the left and/or the right.
type strip struct{ left, right bool }

func (st strip) normalize(p piece) piece {
	if st.left {
		trimmed := strings.TrimLeftFunc(p.text, isSpace)
		p.atStart = p.atStart && len(trimmed) == len(p.text)
		p.text = trimmed
	}
	if st.right {
		p.text = strings.TrimRightFunc(p.text, isSpace)
	}
	return p
}

// stripAccents is StripAccents: combining marks removed.
type stripAccents struct{}

func (stripAccents) normalize(p piece) piece { return filterRunes(p, unicode.IsMark) }

// filterRunes removes the characters for which drop holds.
func filterRunes(p piece, drop func(rune) bool) piece {
	var b strings.Builder
	for i, r := range p.text {
		if drop(r) {
			p.atStart = p.atStart && i > 0
			continue
		}
		b.WriteRune(r)
	}
	p.text = b.String()
	return p
}

// prepend is Prepend: a prefix added to non-empty text.
type prepend struct{ prefix string }

func (pr prepend) normalize(p piece) piece {
	if p.text != "" {
		p.text = pr.prefix + p.text
	}
	return p
}

// replace is Replace: every match of a pattern replaced by content.
type replace struct {
	pattern finder
	content string
}

func (rp replace) normalize(p piece) piece {
	var b strings.Builder
	last := 0
	for _, m := range rp.pattern.findAll(p.text) {
		if m[0] == 0 && m[1] > 0 && rp.content == "" {
			p.atStart = false
		}
		b.WriteString(p.text[last:m[0]])
		b.WriteString(rp.content)
		last = m[1]
	}
	b.WriteString(p.text[last:])
	p.text = b.String()
	return p
}

// bertNormalizer is BertNormalizer.
type bertNormalizer struct {
	cleanText, chineseChars, stripAccents, lowercase bool
}

func (bn bertNormalizer) normalize(p piece) piece {
	if bn.cleanText {
		p = filterRunes(p, func(r rune) bool { return r == 0 || r == 0xFFFD || isControl(r) })
		p.text = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' || isSpace(r) {
				return ' '
			}
			return r
		}, p.text)
	}
	if bn.chineseChars {
		p.text = spaceChinese(p.text)
	}
	if bn.stripAccents {
		p.text = norm.NFD.String(p.text)
		p = filterRunes(p, func(r rune) bool { return unicode.Is(unicode.Mn, r) })
	}
	if bn.lowercase {
		p.text = toLower(p.text)
	}
	return p
}

// spaceChinese puts a space on either side of every CJK ideograph.
func spaceChinese(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isChinese(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
