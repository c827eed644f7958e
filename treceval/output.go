package treceval

import (
	"math"
	"strconv"
)

// rowWriter formats rows as trec_eval prints them, into buf: the measure
// name padded to 22 characters, a tab, the query id, a tab, the value.
type rowWriter struct {
	buf []byte
}

const padding = "                      " // 22 spaces

func (r *rowWriter) start(name, qid string) {
	r.buf = append(r.buf, name...)
	if len(name) < len(padding) {
		r.buf = append(r.buf, padding[len(name):]...)
	}
	r.buf = append(r.buf, '\t')
	r.buf = append(r.buf, qid...)
	r.buf = append(r.buf, '\t')
}

// float prints a value as C's printf("%6.4f") does.
func (r *rowWriter) float(name, qid string, v float64) {
	r.start(name, qid)
	r.buf = append(appendFloat(r.buf, v), '\n')
}

// long prints a value as C's printf("%ld", (long) v) does.
func (r *rowWriter) long(name, qid string, v float64) {
	r.start(name, qid)
	r.buf = append(strconv.AppendInt(r.buf, int64(v), 10), '\n')
}

// text prints a value as it is, between prefix and suffix.
func (r *rowWriter) text(name, qid, prefix, s, suffix string) {
	r.start(name, qid)
	r.buf = append(r.buf, prefix...)
	r.buf = append(r.buf, s...)
	r.buf = append(r.buf, suffix...)
	r.buf = append(r.buf, '\n')
}

// appendFloat formats v as C's printf("%6.4f") does, including "-nan" for
// the NaNs trec_eval produces (0/0 on x86 gives a negative NaN) and "inf".
func appendFloat(dst []byte, v float64) []byte {
	start := len(dst)
	switch {
	case math.IsNaN(v):
		dst = append(dst, "-nan"...)
	case math.IsInf(v, 1):
		dst = append(dst, "inf"...)
	case math.IsInf(v, -1):
		dst = append(dst, "-inf"...)
	default:
		dst = strconv.AppendFloat(dst, v, 'f', 4, 64)
	}
	if pad := 6 - (len(dst) - start); pad > 0 {
		dst = append(dst, "      "[:pad]...)
		copy(dst[start+pad:], dst[start:len(dst)-pad])
		copy(dst[start:start+pad], "      ")
	}
	return dst
}
