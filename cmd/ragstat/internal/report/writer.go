package report

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/ragstat/ragstat/metric"
)

// writer is the buffered writer every renderer writes through. Rows go
// out as they are formatted; numbers are formatted once, with
// strconv.AppendFloat, into one reused scratch buffer.
type writer struct {
	*bufio.Writer
	num []byte // scratch space for one formatted number
}

func newWriter(w io.Writer) *writer {
	return &writer{Writer: bufio.NewWriterSize(w, 64<<10), num: make([]byte, 0, 64)}
}

// value writes one number as the text formats print it (see appendValue).
func (w *writer) value(m metric.Metric, v float64, perQuery bool) {
	w.num = appendValue(w.num[:0], m, v, perQuery)
	w.Write(w.num)
}

// fixed writes v with prec decimals.
func (w *writer) fixed(v float64, prec int) {
	w.num = strconv.AppendFloat(w.num[:0], v, 'f', prec, 64)
	w.Write(w.num)
}

// int writes n in decimal.
func (w *writer) int(n int) {
	w.num = strconv.AppendInt(w.num[:0], int64(n), 10)
	w.Write(w.num)
}

const blanks = "                                                                "

// spaces writes n spaces (none when n <= 0).
func (w *writer) spaces(n int) {
	for n > 0 {
		k := min(n, len(blanks))
		w.WriteString(blanks[:k])
		n -= k
	}
}

// csvField writes s as encoding/csv's Writer does with comma as the
// separator: quoted, with doubled quotes, when it holds the separator, a
// quote or a line break, starts with a space, or is `\.`.
func (w *writer) csvField(s string, comma byte) {
	if !csvNeedsQuotes(s, comma) {
		w.WriteString(s)
		return
	}
	w.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			w.WriteByte('"')
		}
		w.WriteByte(s[i])
	}
	w.WriteByte('"')
}

func csvNeedsQuotes(s string, comma byte) bool {
	if s == "" {
		return false
	}
	if s == `\.` {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\n' || c == '\r' || c == '"' || c == comma {
			return true
		}
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// appendValue formats one number: counts of one query, and trec_eval's
// summed counts, as integers, everything else with four decimals, as
// trec_eval does; an undefined value (a summary over no query) as "-": no
// output prints NaN or an infinity.
func appendValue(dst []byte, m metric.Metric, v float64, perQuery bool) []byte {
	if !isFinite(v) {
		return append(dst, '-')
	}
	return strconv.AppendFloat(dst, v, 'f', valuePrec(m, v, perQuery), 64)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func valuePrec(m metric.Metric, v float64, perQuery bool) int {
	if m.Count && (perQuery || m.Agg == metric.Sum) && v == math.Trunc(v) {
		return 0
	}
	return 4
}

// valueWidth is the length of appendValue's text.
func valueWidth(m metric.Metric, v float64, perQuery bool) int {
	if !isFinite(v) {
		return 1
	}
	return fixedWidth(v, valuePrec(m, v, perQuery))
}

// Number formats a fraction with four decimals, or "-" when it is not a
// finite number, for renderers outside this package.
func Number(v float64) string {
	if !isFinite(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// fixedWidth is len(strconv.AppendFloat(nil, v, 'f', prec, 64)), found by
// counting the integer digits after rounding rather than by formatting,
// except where v is too large or too close to a rounding boundary to tell.
func fixedWidth(v float64, prec int) int {
	a := math.Abs(v)
	if !(a < 1e15) { // NaN, infinities, and values whose digits a float64 does not hold
		var buf [32]byte
		return len(strconv.AppendFloat(buf[:0], v, 'f', prec, 64))
	}
	n := 1 // integer digits
	half := 0.5 * math.Pow10(-prec)
	for p := 10.0; p <= 1e15; p *= 10 { // exact powers of ten
		t := p - half // from here on v rounds up to p or beyond
		if a < t*(1-1e-12) {
			break
		}
		if a < t*(1+1e-12) {
			var buf [32]byte
			return len(strconv.AppendFloat(buf[:0], v, 'f', prec, 64))
		}
		n++
	}
	if prec > 0 {
		n += 1 + prec
	}
	if math.Signbit(v) {
		n++
	}
	return n
}
