// Package pieces splits text into the pieces a byte-pair encoder encodes one
// at a time. It holds hand-written scanners equivalent to the split regular
// expressions of GPT-2 (r50k_base, p50k_base), cl100k_base (also Llama-3),
// o200k_base and Qwen2: the same matches as the regular expressions, found
// without a backtracking regular-expression engine.
package pieces

import "unicode/utf8"

// The split patterns with a scanner, exactly as the encodings and
// tokenizer.json files spell them.
const (
	GPT2   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	CL100K = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	QWEN2  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	O200K  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
		`\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// Scanner returns the end of the piece that starts at byte i of s (i < len(s)).
// Every byte of s belongs to exactly one piece.
type Scanner func(s string, i int) int

// For returns the scanner equivalent to the regular expression pattern, if
// there is one.
func For(pattern string) (Scanner, bool) {
	switch pattern {
	case GPT2:
		return gpt2, true
	case CL100K:
		return cl100k, true
	case QWEN2:
		return qwen2, true
	case O200K:
		return o200k, true
	}
	return nil, false
}

// Each calls yield with every piece of s in order, stopping early if yield
// returns false.
func (sc Scanner) Each(s string, yield func(string) bool) {
	for i := 0; i < len(s); {
		end := sc(s, i)
		if !yield(s[i:end]) {
			return
		}
		i = end
	}
}

func gpt2(s string, i int) int {
	if end := contraction(s, i, false); end > i {
		return end
	}
	p := i
	if s[i] == ' ' && i+1 < len(s) {
		p = i + 1
	}
	c, _ := at(s, p)
	switch {
	case c&cLetter != 0:
		return run(s, p, cLetter)
	case c&cNumber != 0:
		return run(s, p, cNumber)
	case c&cSymbol != 0:
		return run(s, p, cSymbol)
	}
	return spaces(s, i)
}

func cl100k(s string, i int) int { return cl100kLike(s, i, 3) }

func qwen2(s string, i int) int { return cl100kLike(s, i, 1) }

// cl100kLike scans the cl100k_base pattern, taking at most maxDigits digits
// into one piece.
func cl100kLike(s string, i, maxDigits int) int {
	if end := contraction(s, i, true); end > i {
		return end
	}
	c, n := at(s, i)
	if c&cPrefix != 0 {
		if next, _ := at(s, i+n); next&cLetter != 0 {
			return run(s, i+n, cLetter)
		}
	}
	switch {
	case c&cLetter != 0:
		return run(s, i, cLetter)
	case c&cNumber != 0:
		return runMax(s, i, cNumber, maxDigits)
	}
	if end := symbols(s, i, cCRLF); end > i {
		return end
	}
	return newlinesOrSpaces(s, i)
}

func o200k(s string, i int) int {
	if end := o200kASCII(s, i); end > 0 {
		return end
	}
	c, n := at(s, i)
	if c&cPrefix != 0 {
		if end := o200kLower(s, i+n); end > 0 {
			return end
		}
	}
	if end := o200kLower(s, i); end > 0 {
		return end
	}
	if c&cPrefix != 0 {
		if end := o200kUpper(s, i+n); end > 0 {
			return end
		}
	}
	if end := o200kUpper(s, i); end > 0 {
		return end
	}
	if c&cNumber != 0 {
		return runMax(s, i, cNumber, 3)
	}
	if end := symbols(s, i, cCRLF|cSlash); end > i {
		return end
	}
	return newlinesOrSpaces(s, i)
}

// o200kASCII matches the first two alternatives of the o200k_base pattern
// on ASCII text, the usual piece: an optional prefix, upper-case letters,
// lower-case letters (at least one letter in all) and an optional
// contraction. It returns 0 when the piece at i is another one, or when a
// character that decides it is not ASCII; o200k then scans it in full.
func o200kASCII(s string, i int) int {
	p := i
	if c := s[i]; c >= utf8.RuneSelf {
		return 0
	} else if latin1[c]&cPrefix != 0 {
		p++
	}
	q := asciiRun(s, p, cUpperish)
	q = asciiRun(s, q, cLowerish)
	if q == p || q < len(s) && s[q] >= utf8.RuneSelf {
		return 0
	}
	return optContraction(s, q)
}

// asciiRun is run over ASCII characters only.
func asciiRun(s string, i int, in class) int {
	for i < len(s) && s[i] < utf8.RuneSelf && latin1[s[i]]&in != 0 {
		i++
	}
	return i
}

// o200kLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// and an optional contraction at p, returning the end or 0.
func o200kLower(s string, p int) int {
	q, lastLower := p, 0
	for q < len(s) {
		c, n := at(s, q)
		if c&cUpperish == 0 {
			break
		}
		q += n
		if c&cLowerish != 0 {
			lastLower = q
		}
	}
	if c, _ := at(s, q); c&cLowerish != 0 {
		return optContraction(s, run(s, q, cLowerish))
	}
	if lastLower == 0 {
		return 0
	}
	return optContraction(s, lastLower)
}

// o200kUpper matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// and an optional contraction at p, returning the end or 0.
func o200kUpper(s string, p int) int {
	q := run(s, p, cUpperish)
	if q == p {
		return 0
	}
	return optContraction(s, run(s, q, cLowerish))
}

func optContraction(s string, i int) int {
	if end := contraction(s, i, true); end > i {
		return end
	}
	return i
}

// contraction matches 's|'t|'re|'ve|'m|'ll|'d at i (ASCII letters, either
// case when fold is set), returning the end or i.
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	lower := func(c byte) byte {
		if fold && 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && lower(s[i+2]) == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && lower(s[i+2]) == 'l' {
			return i + 3
		}
	}
	return i
}

// symbols matches ` ?[^\s\p{L}\p{N}]+` followed by any run of tail
// characters at i, returning the end or i.
func symbols(s string, i int, tail class) int {
	p := i
	if s[i] == ' ' {
		p++
	}
	q := run(s, p, cSymbol)
	if q == p {
		return i
	}
	return run(s, q, tail)
}

// newlinesOrSpaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at i.
func newlinesOrSpaces(s string, i int) int {
	q := run(s, i, cSpace)
	for j := q - 1; j >= i; j-- {
		if s[j] == '\r' || s[j] == '\n' {
			return j + 1
		}
	}
	return spacesUpTo(s, i, q)
}

// spaces matches \s+(?!\S)|\s+ at i; a character that is no space at all
// (there is none in these patterns) is a piece of its own.
func spaces(s string, i int) int {
	q := run(s, i, cSpace)
	if q == i {
		_, n := at(s, i)
		return i + n
	}
	return spacesUpTo(s, i, q)
}

// spacesUpTo takes the spaces [i, q) but leaves the last one for the next
// piece when a non-space follows, as \s+(?!\S) does.
func spacesUpTo(s string, i, q int) int {
	if q == i {
		_, n := at(s, i)
		return i + n
	}
	if q == len(s) {
		return q
	}
	_, n := utf8.DecodeLastRuneInString(s[i:q])
	if q-n > i {
		return q - n
	}
	return q
}

// run returns the end of the run of characters in any of the classes in,
// from i.
func run(s string, i int, in class) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if latin1[c]&in == 0 {
				break
			}
			i++
			continue
		}
		c, n := at(s, i)
		if c&in == 0 {
			break
		}
		i += n
	}
	return i
}

// runMax is run limited to max characters.
func runMax(s string, i int, in class, max int) int {
	for k := 0; k < max && i < len(s); k++ {
		c, n := at(s, i)
		if c&in == 0 {
			break
		}
		i += n
	}
	return i
}
