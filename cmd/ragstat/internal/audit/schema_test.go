package audit

import (
	"testing"

	"github.com/ragstat/ragstat/internal/schematest"
)

// TestSchema keeps docs/schema/audit.schema.json in step with Report.
func TestSchema(t *testing.T) {
	for _, c := range []struct {
		path []string
		typ  any
	}{
		{nil, Report{}},
		{[]string{"properties", "settings"}, Settings{}},
		{[]string{"properties", "summary"}, Summary{}},
		{[]string{"$defs", "count"}, Count{}},
		{[]string{"$defs", "slice"}, SliceCount{}},
		{[]string{"$defs", "resolution"}, Resolution{}},
		{[]string{"$defs", "power"}, Power{}},
		{[]string{"$defs", "query"}, Query{}},
		{[]string{"$defs", "flag"}, Flag{}},
	} {
		schematest.Check(t, "audit.schema.json", c.typ, c.path...)
	}
}
