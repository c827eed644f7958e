// Package idtext prints ids, names and other text that comes from the data
// in the text formats (table, Markdown, trec, CSV, TSV, HTML), so that data
// never becomes layout: a query id holding a line break cannot forge a line
// of output, nor a cell a spreadsheet formula.
//
// The rule, the same in every text format: a string is printed as it is
// unless it is not valid UTF-8, holds a character that is not printable
// (strconv.IsPrint: control characters such as a tab or a line break,
// format characters such as bidirectional overrides, line and paragraph
// separators, spaces other than U+0020), or begins with a double quote;
// such a string is printed quoted, as strconv.Quote writes it ("q2\nall").
// Output beginning with a double quote is therefore always quoted, and
// strconv.Unquote gives the id back.
package idtext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Show returns s as the text formats print it (see the package comment).
// It returns s itself, without allocating, when s needs no quotes.
func Show(s string) string {
	if plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// Line returns a line of text that names ids (a note, a heading) as it
// is printed: as it is, unless it holds what Show quotes (a character that
// is not printable, a byte that is not UTF-8); then quoted as strconv.Quote
// writes it. Unlike an id, a line beginning with a double quote is left as
// it is: the ids it names are already shown.
func Line(s string) string {
	if printable(s) {
		return s
	}
	return strconv.Quote(s)
}

// plain reports whether s is printed as it is.
func plain(s string) bool {
	return !strings.HasPrefix(s, `"`) && printable(s)
}

// printable reports whether s is valid UTF-8 of printable characters.
func printable(s string) bool {
	i := 0
	for i < len(s) && s[i]-0x20 < 0x7f-0x20 { // printable ASCII, one test a byte
		i++
	}
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// Cell returns s as a CSV or TSV cell holds it, before the quoting of
// RFC 4180: Show's text, with a single quote put before a leading '=',
// '+', '-' or '@', which a spreadsheet would otherwise read as a formula
// (OWASP's guidance on CSV injection).
func Cell(s string) string {
	s = Show(s)
	if s != "" && strings.IndexByte("=+-@", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// Markdown returns s as a Markdown table cell or line holds it: Show's
// text with '|' (a cell's end), '<' (the start of inline HTML) and '\'
// escaped with a backslash.
func Markdown(s string) string { return escapeMarkdown(Show(s)) }

// MarkdownLine returns a line naming ids (a note, a message) as a Markdown
// line holds it: Line's text with Markdown's characters escaped as
// Markdown escapes them.
func MarkdownLine(s string) string { return escapeMarkdown(Line(s)) }

func escapeMarkdown(s string) string {
	if !strings.ContainsAny(s, markdownSpecial) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(markdownSpecial, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

const markdownSpecial = "|<\\"
