package treceval

import (
	"bufio"
	"math"
	"strconv"
	"strings"
)

// writeRow prints one line as trec_eval does: the measure name padded to 22
// characters, a tab, the query id, a tab, the value.
func writeRow(out *bufio.Writer, name, qid, value string) {
	out.WriteString(name)
	for i := len(name); i < 22; i++ {
		out.WriteByte(' ')
	}
	out.WriteByte('\t')
	out.WriteString(qid)
	out.WriteByte('\t')
	out.WriteString(value)
	out.WriteByte('\n')
}

// formatFloat formats as C's printf("%6.4f").
func formatFloat(v float64) string {
	var s string
	switch {
	case math.IsNaN(v):
		s = "-nan" // trec_eval's NaNs come from 0/0, which x86 makes negative
	case math.IsInf(v, 1):
		s = "inf"
	case math.IsInf(v, -1):
		s = "-inf"
	default:
		s = strconv.FormatFloat(v, 'f', 4, 64)
	}
	if len(s) < 6 {
		s = strings.Repeat(" ", 6-len(s)) + s
	}
	return s
}

// formatLong formats as C's printf("%ld", (long) v).
func formatLong(v float64) string {
	return strconv.FormatInt(int64(v), 10)
}
