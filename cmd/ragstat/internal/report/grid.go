package report

import (
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/ragstat/ragstat/metric"
)

// grid writes rows of cells aligned in columns exactly as text/tabwriter
// does with minwidth 0, tabwidth 0, padchar ' ' and no flags (every column
// but the last padded to its widest cell plus padding), but row by row,
// without holding the table. The caller goes over its rows twice: first
// measuring (the cells' widths are counted, numbers are not formatted),
// then, after start, writing. A cell holding a character tabwriter treats
// specially (a tab, a line or page break, a vertical tab, its escape byte)
// makes the grid hand its rows to a tabwriter, so the output stays the
// same.
type grid struct {
	w       *writer
	padding int
	widths  []int // widest cell of each column, in runes
	writing bool  // past start
	special bool  // some cell needs tabwriter's own handling
	tw      *tabwriter.Writer
	col     int
}

func newGrid(w *writer, columns, padding int) *grid {
	return &grid{w: w, padding: padding, widths: make([]int, columns)}
}

// start ends measuring: from here on the cells are written.
func (g *grid) start() {
	g.writing = true
	if g.special {
		g.tw = tabwriter.NewWriter(g.w, 0, 0, g.padding, ' ', 0)
	}
}

// text is the next cell of the row.
func (g *grid) text(s string) {
	switch {
	case !g.writing:
		if strings.ContainsAny(s, "\t\v\n\f\xff") {
			g.special = true
		}
		g.measured(utf8.RuneCountInString(s))
	case g.tw != nil:
		g.tw.Write([]byte(s))
		g.next()
	default:
		g.w.WriteString(s)
		g.pad(utf8.RuneCountInString(s))
	}
}

// value is the next cell: one number, as appendValue formats it.
func (g *grid) value(m metric.Metric, v float64, perQuery bool) {
	if !g.writing {
		g.measured(valueWidth(m, v, perQuery))
		return
	}
	g.w.num = appendValue(g.w.num[:0], m, v, perQuery)
	g.num()
}

// cell is the next cell: a value or an interval, as appendCell formats it.
func (g *grid) cell(m metric.Metric, low, high []float64, i int, perQuery bool) {
	if !g.writing {
		g.measured(cellWidth(m, low, high, i, perQuery))
		return
	}
	g.w.num = appendCell(g.w.num[:0], m, low, high, i, perQuery)
	g.num()
}

// fixed is the next cell: v with prec decimals.
func (g *grid) fixed(v float64, prec int) {
	if !g.writing {
		g.measured(fixedWidth(v, prec))
		return
	}
	g.w.num = strconv.AppendFloat(g.w.num[:0], v, 'f', prec, 64)
	g.num()
}

// int is the next cell: n in decimal.
func (g *grid) int(n int) {
	g.w.num = strconv.AppendInt(g.w.num[:0], int64(n), 10)
	if !g.writing {
		g.measured(len(g.w.num))
		return
	}
	g.num()
}

func (g *grid) measured(width int) {
	g.widths[g.col] = max(g.widths[g.col], width)
	g.next()
}

// num writes the ASCII number in the writer's scratch buffer as a cell.
func (g *grid) num() {
	if g.tw != nil {
		g.tw.Write(g.w.num)
		g.next()
		return
	}
	g.w.Write(g.w.num)
	g.pad(len(g.w.num))
}

func (g *grid) pad(width int) {
	if g.col < len(g.widths)-1 {
		g.w.spaces(g.widths[g.col] + g.padding - width)
	}
	g.next()
}

// next moves to the next cell, or the next row after the last cell.
func (g *grid) next() {
	last := g.col == len(g.widths)-1
	switch {
	case !g.writing:
	case last && g.tw != nil:
		g.tw.Write([]byte{'\n'})
	case last:
		g.w.WriteByte('\n')
	case g.tw != nil:
		g.tw.Write([]byte{'\t'})
	}
	g.col++
	if last {
		g.col = 0
	}
}

// flush ends the table.
func (g *grid) flush() error {
	if g.tw != nil {
		return g.tw.Flush()
	}
	return nil
}
