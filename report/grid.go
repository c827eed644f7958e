package report

import (
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// grid writes rows of cells aligned in columns exactly as text/tabwriter
// does with minwidth 0, tabwidth 0, padchar ' ' and no flags (every column
// but the last padded to its widest cell plus padding), but row by row,
// without holding the table: the caller measures every cell first, then
// writes. A cell holding a character tabwriter treats specially (a tab, a
// line or page break, a vertical tab, its escape byte) makes the grid
// hand its rows to a tabwriter, so the output stays the same.
type grid struct {
	w       *writer
	padding int
	widths  []int // widest cell of each column, in runes
	special bool  // some cell needs tabwriter's own handling
	tw      *tabwriter.Writer
	col     int
}

func newGrid(w *writer, columns, padding int) *grid {
	return &grid{w: w, padding: padding, widths: make([]int, columns)}
}

// measure records a cell of col that is width runes wide.
func (g *grid) measure(col, width int) {
	g.widths[col] = max(g.widths[col], width)
}

// measureText records a cell of text.
func (g *grid) measureText(col int, s string) {
	g.measure(col, utf8.RuneCountInString(s))
	if strings.ContainsAny(s, "\t\v\n\f\xff") {
		g.special = true
	}
}

// start ends measuring: from here on rows are written.
func (g *grid) start() {
	if g.special {
		g.tw = tabwriter.NewWriter(g.w, 0, 0, g.padding, ' ', 0)
	}
}

// text writes the next cell of the row.
func (g *grid) text(s string) {
	if g.tw != nil {
		g.tw.Write([]byte(s))
		g.next()
		return
	}
	g.w.WriteString(s)
	g.pad(utf8.RuneCountInString(s))
}

// num writes the next cell of the row from the writer's scratch buffer,
// where an ASCII number was formatted.
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
