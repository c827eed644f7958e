package compare

import (
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/schematest"
)

// TestSchema keeps docs/schema/compare.schema.json in step with Result.
func TestSchema(t *testing.T) {
	tests := []struct {
		path []string
		typ  any
	}{
		{nil, Result{}},
		{[]string{"properties", "settings"}, Settings{}},
		{[]string{"$defs", "comparison"}, Comparison{}},
		{[]string{"$defs", "t_test"}, TTest{}},
		{[]string{"$defs", "moved"}, Moved{}},
		{[]string{"$defs", "ranking"}, Ranking{}},
		{[]string{"$defs", "item"}, Item{}},
		{[]string{"$defs", "loss"}, Loss{}},
		{[]string{"properties", "frontier"}, Frontier{}},
		{[]string{"$defs", "frontier_system"}, FrontierSystem{}},
		{[]string{"properties", "partial"}, partial{}},
		{[]string{"$defs", "partial_side"}, partialSide{}},
		{[]string{"$defs", "traced"}, tracedSide{}},
		{[]string{"$defs", "ppi_diff"}, PPIDiff{}},
		{[]string{"$defs", "agreement"}, eval.Agreement{}},
		{[]string{"$defs", "rank_agreement"}, eval.RankAgreement{}},
	}
	for _, tt := range tests {
		schematest.Check(t, "compare.schema.json", tt.typ, tt.path...)
	}
}
