package report

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/stages"
)

// TestAnalysesOverNothing: a mean or share over nothing prints "-", never
// 0.0000: an empty calibration bin, a position bucket with no passage or
// query, a stage without text; and costs name their currency.
func TestAnalysesOverNothing(t *testing.T) {
	var b strings.Builder
	a := &stages.Analyses{
		Calibration: []stages.StageCalibration{{Stage: "reranked", Bins: []stages.CalibrationBin{{Low: 0, High: 0.5}}}},
		Redundancy:  stages.RedundancyReport{Unit: "words", Stages: []stages.StageRedundancy{{Stage: "context", Lists: 1, Items: 2, NoText: 2}}},
		Position:    stages.EvidencePosition{Buckets: []stages.PositionBucket{{Bucket: "begin"}}},
		Cost:        &stages.CostReport{Queries: 1, PriceIn: 2.5, PriceOut: 10, PerQuery: 0.001, Total: 0.001},
	}
	analysesLines(&b, a)
	out := b.String()
	for _, want := range []string{"0           0.5  0      -           -         -", "begin     0         -          0        -",
		"2.5 USD per 1M input", "0.001000 USD per query"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0.0000") {
		t.Errorf("prints 0.0000 over nothing:\n%s", out)
	}
}
