package hf

import "unicode"

// The character classes below follow the Rust definitions Hugging Face's
// tokenizers use, spelled with Go's Unicode tables.

// isSpace is Rust's char::is_whitespace and the \s of its regular
// expressions: the White_Space property.
func isSpace(r rune) bool { return unicode.IsSpace(r) }

// isWordChar is \w in Rust's regex crate: Alphabetic, Mark,
// Decimal_Number, Connector_Punctuation and Join_Control.
func isWordChar(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.In(r, unicode.Nd, unicode.Nl, unicode.Pc, unicode.Other_Alphabetic) ||
		r == 0x200C || r == 0x200D
}

// isPunct is the punctuation of BertPreTokenizer and Punctuation: ASCII
// punctuation and symbols, and the Unicode punctuation categories.
func isPunct(r rune) bool {
	if r < 0x80 {
		return 0x21 <= r && r <= 0x2F || 0x3A <= r && r <= 0x40 || 0x5B <= r && r <= 0x60 || 0x7B <= r && r <= 0x7E
	}
	return unicode.IsPunct(r)
}

// isNumeric is Rust's char::is_numeric: the Number categories.
func isNumeric(r rune) bool { return unicode.IsNumber(r) }

// isControl is BertNormalizer's control character: a Cc, Cf, Co or Cs
// character other than tab, newline and carriage return.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isChinese is BertNormalizer's CJK ideograph ranges.
func isChinese(r rune) bool {
	return 0x4E00 <= r && r <= 0x9FFF || 0x3400 <= r && r <= 0x4DBF || 0x20000 <= r && r <= 0x2A6DF ||
		0x2A700 <= r && r <= 0x2B73F || 0x2B740 <= r && r <= 0x2B81F || 0x2B920 <= r && r <= 0x2CEAF ||
		0xF900 <= r && r <= 0xFAFF || 0x2F800 <= r && r <= 0x2FA1F
}
