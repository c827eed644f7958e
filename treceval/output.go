package treceval

import (
	"bufio"
	"math"
	"strconv"
)

// rowWriter prints rows as trec_eval does: the measure name padded to 22
// characters, a tab, the query id, a tab, the value.
type rowWriter struct {
	w   *bufio.Writer
	num []byte // scratch space for formatting numbers
}

func (r *rowWriter) row(name, qid string, value []byte) {
	r.w.WriteString(name)
	for i := len(name); i < 22; i++ {
		r.w.WriteByte(' ')
	}
	r.w.WriteByte('\t')
	r.w.WriteString(qid)
	r.w.WriteByte('\t')
	r.w.Write(value)
	r.w.WriteByte('\n')
}

// float prints a value as C's printf("%6.4f") does.
func (r *rowWriter) float(name, qid string, v float64) {
	r.num = appendFloat(r.num[:0], v)
	r.row(name, qid, r.num)
}

// long prints a value as C's printf("%ld", (long) v) does.
func (r *rowWriter) long(name, qid string, v float64) {
	r.num = strconv.AppendInt(r.num[:0], int64(v), 10)
	r.row(name, qid, r.num)
}

// text prints a value as it is.
func (r *rowWriter) text(name, qid, s string) {
	r.num = append(r.num[:0], s...)
	r.row(name, qid, r.num)
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
