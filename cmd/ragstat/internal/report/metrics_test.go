package report

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/metric"
)

// Metrics lists every family once, under its origin's heading, ragstat's
// own names first.
func TestMetrics(t *testing.T) {
	var b strings.Builder
	if err := Metrics(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, f := range metric.Families {
		if !strings.Contains(out, "\n"+f.Name+" ") {
			t.Errorf("%s (%s) is not listed", f.Name, f.Origin)
		}
	}
	at := func(o metric.Origin) int { return strings.Index(out, metricsHeading[o]) }
	if at(metric.Ragstat) != 0 || at(metric.TrecEval) < 0 || at(metric.Ranx) < 0 {
		t.Errorf("headings at %d, %d, %d", at(metric.Ragstat), at(metric.TrecEval), at(metric.Ranx))
	}
}
