package htmlreport

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/compare"
)

// TestIntervalDotInColumn: the dot and the interval stay inside the cell's
// 140-unit drawing, for a mean outside its interval (BCa) and for the
// largest values on the shared scale.
func TestIntervalDotInColumn(t *testing.T) {
	r := &compare.Result{Comparisons: []compare.Comparison{
		{Stat: compare.Stat{MeanDiff: -0.30, CILow: -0.25, CIHigh: -0.05}}, // a BCa interval that misses its mean
		{Stat: compare.Stat{MeanDiff: 0.10, CILow: 0.02, CIHigh: 0.20}},
	}}
	span := spanOf(r)
	if span != 0.30 {
		t.Errorf("span %g, want 0.30: the largest mean or interval end", span)
	}
	num := regexp.MustCompile(`(?:cx|x1|x2)="([-0-9.]+)"`)
	for _, c := range r.Comparisons {
		svg := string(interval(&c.Stat, span))
		for _, m := range num.FindAllStringSubmatch(svg, -1) {
			if v, _ := strconv.ParseFloat(m[1], 64); v < 3 || v > 137 {
				t.Errorf("%+v: x = %g lies outside the cell: %s", c.Stat, v, svg)
			}
		}
	}
	huge := string(interval(&compare.Stat{MeanDiff: 5, CILow: -5, CIHigh: 5}, 1))
	for _, m := range num.FindAllStringSubmatch(huge, -1) {
		if v, _ := strconv.ParseFloat(m[1], 64); v < 3 || v > 137 {
			t.Errorf("values beyond the scale are not clamped: x = %g", v)
		}
	}
}

// TestChartTextSize: charts are drawn one user unit a pixel, with their
// text at the size of the tables' text.
func TestChartTextSize(t *testing.T) {
	data, err := assets.ReadFile("assets/style.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(data)
	body := regexp.MustCompile(`body \{ font: (\d+px)`).FindStringSubmatch(css)
	svg := regexp.MustCompile(`\nsvg \{[^}]*font-size: (\d+px)`).FindStringSubmatch(css)
	if body == nil || svg == nil || body[1] != svg[1] {
		t.Errorf("body text %v, chart text %v: they should match", body, svg)
	}
	chart := string(diffBars([]compare.Moved{{Diff: 0.1}, {Diff: -0.2}}, "x"))
	if !strings.HasPrefix(chart, `<svg viewBox="0 0 720 220" width="720" height="220"`) {
		t.Errorf("a chart without its own size: %.80s", chart)
	}
}
