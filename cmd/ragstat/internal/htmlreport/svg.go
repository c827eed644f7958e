package htmlreport

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/internal/idtext"
)

// Chart sizes, in SVG user units.
const (
	chartW, chartH = 720.0, 220.0
	pad            = 56.0
	scatterSide    = 300.0
)

// svgOpen starts an SVG drawn at its own size, one user unit a pixel, so
// its labels have the tables' text size; it shrinks to a narrower
// container (style.css). The label, which may name ids, is written as a
// line naming ids is (idtext.Line).
func svgOpen(b *strings.Builder, w, h float64, label string) {
	fmt.Fprintf(b, `<svg viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		w, h, w, h, template.HTMLEscapeString(idtext.Line(label)))
}

// escID is an id, a name or a stage from the data as an SVG's text holds
// it: as the text formats print ids (idtext.Show), HTML-escaped.
func escID(s string) string { return template.HTMLEscapeString(idtext.Show(s)) }

// diffBars draws every query's difference as a bar, sorted from the
// largest drop to the largest gain: red below zero, green above.
func diffBars(moves []compare.Moved, label string) template.HTML {
	var b strings.Builder
	svgOpen(&b, chartW, chartH, label)
	span := 0.0
	for _, m := range moves {
		span = math.Max(span, math.Abs(m.Diff))
	}
	if span == 0 {
		span = 1
	}
	plotH := chartH - 2*pad
	zero := pad + plotH/2
	y := func(d float64) float64 { return zero - d/span*plotH/2 }
	bw := (chartW - 2*pad) / float64(max(len(moves), 1))
	var neg, pos strings.Builder
	for i, m := range moves {
		x := pad + float64(i)*bw
		path := &pos
		if m.Diff < 0 {
			path = &neg
		} else if m.Diff == 0 {
			continue
		}
		fmt.Fprintf(path, "M%.2f %.2fH%.2fV%.2fH%.2fZ", x, zero, x+bw, y(m.Diff), x)
	}
	fmt.Fprintf(&b, `<path class="neg" d="%s"/><path class="pos" d="%s"/>`, neg.String(), pos.String())
	fmt.Fprintf(&b, `<line class="axis" x1="%g" x2="%g" y1="%.2f" y2="%.2f"/>`, pad, chartW-pad, zero, zero)
	fmt.Fprintf(&b, `<text x="4" y="%.2f">%+.3f</text><text x="4" y="%.2f">%+.3f</text><text x="4" y="%.2f">0</text>`,
		pad+4, span, chartH-pad, -span, zero+4)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%d queries, sorted by difference (candidate − base)</text></svg>`,
		chartW/2, chartH-8, len(moves))
	return template.HTML(b.String())
}

// scatter plots base (x) against candidate (y) per query, with the
// diagonal of no change: points above it improved.
func scatter(moves []compare.Moved, label string) template.HTML {
	var b strings.Builder
	svgOpen(&b, scatterSide, scatterSide, label)
	top := 1.0
	for _, m := range moves {
		top = math.Max(top, math.Max(m.Base, m.Cand))
	}
	inner := scatterSide - 2*pad
	px := func(v float64) float64 { return pad + v/top*inner }
	py := func(v float64) float64 { return scatterSide - pad - v/top*inner }
	var up, down, same strings.Builder
	for _, m := range moves {
		path := &same
		if m.Diff > 0 {
			path = &up
		} else if m.Diff < 0 {
			path = &down
		}
		fmt.Fprintf(path, "M%.2f %.2fm-3 0a3 3 0 1 0 6 0a3 3 0 1 0-6 0", px(m.Base), py(m.Cand))
	}
	fmt.Fprintf(&b, `<rect class="frame" x="%g" y="%g" width="%g" height="%g"/>`, pad, pad, inner, inner)
	fmt.Fprintf(&b, `<line class="axis" x1="%g" y1="%g" x2="%g" y2="%g"/>`, px(0), py(0), px(top), py(top))
	fmt.Fprintf(&b, `<path class="same" d="%s"/><path class="pos" d="%s"/><path class="neg" d="%s"/>`,
		same.String(), up.String(), down.String())
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">base</text>`, scatterSide/2, scatterSide-8)
	fmt.Fprintf(&b, `<text x="12" y="%g" transform="rotate(-90 12 %g)" text-anchor="middle">candidate</text>`, scatterSide/2, scatterSide/2)
	fmt.Fprintf(&b, `<text x="%g" y="%g">0</text><text x="%g" y="%g" text-anchor="end">%.2g</text></svg>`,
		pad-10, scatterSide-pad+12, scatterSide-pad, scatterSide-pad+12, top)
	return template.HTML(b.String())
}

// interval draws a difference and its interval on a shared scale [-span,
// span], with zero marked: a small forest plot for a table cell.
func interval(s *compare.Stat, span float64) template.HTML {
	const w, h = 140.0, 16.0
	// span covers every interval and mean; the clamp keeps a dot inside
	// its cell whatever it is given.
	x := func(v float64) float64 { return min(w-4, max(4, w/2+v/span*(w/2-4))) }
	class := "same"
	switch {
	case s.CILow > 0:
		class = "pos"
	case s.CIHigh < 0:
		class = "neg"
	}
	return template.HTML(fmt.Sprintf(`<svg class="ci" viewBox="0 0 %g %g" width="%g" height="%g"><line class="axis" x1="%g" x2="%g" y1="0" y2="%g"/>`+
		`<line class="%s ci-line" x1="%.2f" x2="%.2f" y1="%g" y2="%g"/><circle class="%s" cx="%.2f" cy="%g" r="3"/></svg>`,
		w, h, w, h, w/2, w/2, h, class, x(s.CILow), x(s.CIHigh), h/2, h/2, class, x(s.MeanDiff), h/2))
}

// meanBars draws one bar per run for one metric's mean.
func meanBars(names []string, means []float64, label string) template.HTML {
	var b strings.Builder
	const rowH = 22.0
	h := rowH*float64(len(names)) + 8
	svgOpen(&b, chartW, h, label)
	top := 1.0
	for _, m := range means {
		if !math.IsNaN(m) && !math.IsInf(m, 0) {
			top = math.Max(top, m)
		}
	}
	for i, n := range names {
		y := 4 + float64(i)*rowH
		if math.IsNaN(means[i]) || math.IsInf(means[i], 0) { // undefined: no bar
			fmt.Fprintf(&b, `<text x="0" y="%.1f">%s</text><text x="186" y="%.1f">-</text>`, y+15, escID(n), y+15)
			continue
		}
		w := means[i] / top * (chartW - 260)
		fmt.Fprintf(&b, `<text x="0" y="%.1f">%s</text><rect class="pos" x="180" y="%.1f" width="%.2f" height="%g"/><text x="%.2f" y="%.1f">%.4f</text>`,
			y+15, escID(n), y+2, w, rowH-6, 186+w, y+15, means[i])
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// frontierPlot places every system at its cost or latency (x, from zero)
// and quality (y, from zero), named beside its point: a system on the
// frontier filled, a beaten one hollow.
func frontierPlot(f *compare.Frontier, axis string, x func(compare.FrontierSystem) float64) template.HTML {
	var b strings.Builder
	svgOpen(&b, scatterSide, scatterSide, "quality vs "+axis)
	xTop, yTop := 0.0, 0.0
	for _, s := range f.Systems {
		xTop, yTop = math.Max(xTop, x(s)), math.Max(yTop, float64(s.Quality))
	}
	if xTop == 0 {
		xTop = 1
	}
	if yTop == 0 || math.IsNaN(yTop) {
		yTop = 1
	}
	inner := scatterSide - 2*pad
	px := func(v float64) float64 { return pad + v/xTop*inner }
	py := func(v float64) float64 { return scatterSide - pad - v/yTop*inner }
	fmt.Fprintf(&b, `<rect class="frame" x="%g" y="%g" width="%g" height="%g"/>`, pad, pad, inner, inner)
	for _, s := range f.Systems {
		class := "same"
		if s.OnFrontier {
			class = "pos"
		}
		cx, cy := px(x(s)), py(float64(s.Quality))
		fmt.Fprintf(&b, `<circle class="%s" cx="%.2f" cy="%.2f" r="5"><title>%s: quality %.4f, %s %.6g</title></circle>`,
			class, cx, cy, escID(s.System), float64(s.Quality), axis, x(s))
		fmt.Fprintf(&b, `<text x="%.2f" y="%.2f">%s</text>`, cx+8, cy+4, escID(s.System))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, scatterSide/2, scatterSide-8, axis)
	fmt.Fprintf(&b, `<text x="12" y="%g" transform="rotate(-90 12 %g)" text-anchor="middle">quality (%s)</text>`,
		scatterSide/2, scatterSide/2, escID(f.Metric))
	fmt.Fprintf(&b, `<text x="%g" y="%g">0</text><text x="%g" y="%g" text-anchor="end">%.3g</text><text x="%g" y="%g" text-anchor="end">%.3g</text></svg>`,
		pad-10, scatterSide-pad+12, scatterSide-pad, scatterSide-pad+12, xTop, pad-4, pad+4, yTop)
	return template.HTML(b.String())
}
