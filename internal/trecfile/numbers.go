package trecfile

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"
)

// view returns a string that shares b's bytes; it is valid while b is.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// pow10 holds the powers of ten that a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastDecimal parses [+-]digits[.digits] when the result needs a single
// rounding (a mantissa of at most 2^53 and at most 22 decimals), the common
// shape of TREC scores. ok is false for anything else.
func fastDecimal(b []byte) (v float64, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	v, ok = shortDecimal(b[i:])
	if !ok {
		v, ok = longDecimal(b[i:])
	}
	if neg {
		v = -v
	}
	return v, ok
}

// shortDecimal parses digits[.digits] of at most 9 bytes, eight digits
// at a time: the digits after the point are moved up over it, so the
// mantissa is one word of digits. It reads 9 bytes from the start of b,
// within its capacity, and gives up (ok false) where the capacity is
// shorter or the number longer.
func shortDecimal(b []byte) (v float64, ok bool) {
	n := len(b)
	if n == 0 || n > 9 || cap(b) < 9 {
		return 0, false
	}
	w := binary.LittleEndian.Uint64(b[:8])
	point := bits.TrailingZeros64(nonDigits(w)) / 8 // the first byte that is not a digit
	if point >= n {                                 // an integer of at most 8 digits
		return float64(eightDigits(w, n)), true
	}
	if b[point] != '.' || n == 1 {
		return 0, false
	}
	before := uint64(1)<<(8*point) - 1 // the bytes before the point (all of them if it is the ninth)
	digits := w&before | binary.LittleEndian.Uint64(b[1:9])&^before
	if nonDigits(digits)<<(72-8*n) != 0 {
		return 0, false
	}
	return float64(int64(eightDigits(digits, n-1))) / pow10[n-1-point], true
}

// nonDigits marks the bytes of w that are not ASCII digits.
func nonDigits(w uint64) uint64 {
	x := w ^ 0x3030303030303030 // a digit becomes 0 to 9
	return (x&low7 + (0x80-10)*ones | x) & highs
}

// eightDigits returns the value of the first n (at most 8) bytes of w,
// which are ASCII digits, the first one the most significant.
func eightDigits(w uint64, n int) uint64 {
	if n == 0 {
		return 0
	}
	d := (w - 0x3030303030303030) << (64 - 8*n) // the digits, led by zeros
	d = d*10 + d>>8
	return (d&0x000000ff000000ff*(100+1000000<<32) + d>>16&0x000000ff000000ff*(1+10000<<32)) >> 32
}

// longDecimal is fastDecimal's byte-by-byte path, for an unsigned number.
func longDecimal(b []byte) (v float64, ok bool) {
	i := 0
	var mant uint64
	for i < len(b) && b[i]-'0' < 10 {
		mant = mant*10 + uint64(b[i]-'0')
		i++
	}
	digits, frac := i, 0
	if i < len(b) && b[i] == '.' {
		i++
		fracStart := i
		for i < len(b) && b[i]-'0' < 10 {
			mant = mant*10 + uint64(b[i]-'0')
			i++
		}
		frac = i - fracStart
	}
	digits += frac
	if i != len(b) || digits == 0 || digits > 19 || mant > 1<<53 || frac > 22 {
		return 0, false
	}
	return float64(mant) / pow10[frac], true
}

// parseScore parses a whole field as a finite decimal float64 (ragstat's
// rule): [+-]digits[.digits][e[+-]digits]. Go's and C's other spellings,
// hexadecimal (0x1p3), digit separators (1_0), inf and nan, are refused.
func parseScore(b []byte) (float64, bool) {
	if v, ok := fastDecimal(b); ok {
		return v, true
	}
	if !isDecimal(b) {
		return 0, false
	}
	v, err := strconv.ParseFloat(view(b), 64)
	return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v)
}

// isDecimal reports whether b is [+-]digits[.digits][(e|E)[+-]digits],
// with digits on at least one side of the point.
func isDecimal(b []byte) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(b) && b[i]-'0' < 10 {
			i++
		}
		return i - start
	}
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	n := digits()
	if i < len(b) && b[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// parseInt parses a whole field as a decimal integer, with an optional
// minus sign (a plus sign is refused: no tool writes one).
func parseInt(b []byte) (int, bool) {
	if len(b) > 0 && b[0] == '+' {
		return 0, false
	}
	if n := len(b); 0 < n && n <= 8 && cap(b) >= 8 { // the common case: a few digits, no sign
		if w := binary.LittleEndian.Uint64(b[:8]); nonDigits(w)<<(64-8*n) == 0 {
			return int(eightDigits(w, n)), true
		}
	}
	if 0 < len(b) && len(b) <= 9 {
		v := 0
		for _, c := range b {
			if c-'0' >= 10 {
				goto general
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
general:
	v, err := strconv.ParseInt(view(b), 10, 0)
	return int(v), err == nil
}

// notInt says why parseInt refused b: it is not an integer, or one beyond
// what an int holds. It is called on the error path only.
func notInt(b []byte) string {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || slices.ContainsFunc(digits, func(c byte) bool { return !isDigit(c) }) {
		return " is not an integer"
	}
	return " is beyond " + strconv.Itoa(math.MinInt) + ".." + strconv.Itoa(math.MaxInt) + ", the integers this reader holds"
}

// Atof reads a number the way C's atof does: the longest prefix of b that is
// a number (decimal or hexadecimal, inf, infinity, nan), 0 when there is none.
// Values out of range become ±Inf or 0, as strtod makes them.
func Atof(b []byte) float64 {
	if v, ok := fastDecimal(b); ok {
		return v
	}
	b = trimSpaceLeft(b)
	n := floatPrefix(b)
	if n == 0 {
		return 0
	}
	s := string(b[:n])
	if isHexPrefix(b[:n]) && !containsFold(b[:n], 'p') {
		s += "p0"
	}
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// Atol reads an integer the way C's atol does: optional whitespace and sign,
// then the longest run of digits; 0 when there are none. Values out of range
// saturate, as strtol makes them.
func Atol(b []byte) int64 {
	b = trimSpaceLeft(b)
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var v uint64
	over := false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		d := uint64(b[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		v = v*10 + d
	}
	switch {
	case neg && (over || v > 1<<63):
		return math.MinInt64
	case neg:
		return -int64(v)
	case over || v > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(v)
}

// trimSpaceLeft drops leading C whitespace.
func trimSpaceLeft(b []byte) []byte {
	for len(b) > 0 && isSpace[b[0]] {
		b = b[1:]
	}
	return b
}

// floatPrefix returns the length of the longest prefix of b that strtod
// accepts as a number.
func floatPrefix(b []byte) int {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	if n := wordPrefix(b[i:]); n > 0 {
		return i + n
	}
	if isHexPrefix(b[i:]) {
		if n := mantissaPrefix(b[i+2:], isHexDigit); n > 0 {
			return i + 2 + n + exponentPrefix(b[i+2+n:], 'p')
		}
		return i + 1 // "0x" with no digits reads as the number 0
	}
	n := mantissaPrefix(b[i:], isDigit)
	if n == 0 {
		return 0
	}
	return i + n + exponentPrefix(b[i+n:], 'e')
}

// wordPrefix matches infinity, inf and nan (any case).
func wordPrefix(b []byte) int {
	for _, w := range []string{"infinity", "inf", "nan"} {
		if len(b) >= len(w) && equalFold(b[:len(w)], w) {
			return len(w)
		}
	}
	return 0
}

// mantissaPrefix matches digits[.digits] or .digits; 0 if no digit.
func mantissaPrefix(b []byte, digit func(byte) bool) int {
	i, seen := 0, false
	for ; i < len(b) && digit(b[i]); i++ {
		seen = true
	}
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for ; j < len(b) && digit(b[j]); j++ {
			seen = true
		}
		i = j
	}
	if !seen {
		return 0
	}
	return i
}

// exponentPrefix matches an exponent introduced by mark (or its upper case)
// that has at least one digit; 0 otherwise.
func exponentPrefix(b []byte, mark byte) int {
	if len(b) == 0 || b[0]|0x20 != mark {
		return 0
	}
	i := 1
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	j := i
	for ; j < len(b) && isDigit(b[j]); j++ {
	}
	if j == i {
		return 0
	}
	return j
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func isHexPrefix(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	return len(b) >= 2 && b[0] == '0' && b[1]|0x20 == 'x'
}

func containsFold(b []byte, c byte) bool {
	for _, x := range b {
		if x|0x20 == c {
			return true
		}
	}
	return false
}

func equalFold(b []byte, s string) bool {
	for i := range b {
		if b[i]|0x20 != s[i] {
			return false
		}
	}
	return true
}

// isSpace is C's isspace in the C locale.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}
