package chunks

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSchemasMatchReaders keeps the published JSON Schemas and the readers
// in step: every field a reader accepts is documented, and nothing more.
func TestSchemasMatchReaders(t *testing.T) {
	for file, typ := range map[string]any{"chunks.schema.json": rawChunk{}, "documents.schema.json": rawDocument{}} {
		data, err := os.ReadFile("../docs/schema/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct{ Properties map[string]any }
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var fields []string
		for f := range reflect.TypeOf(typ).Fields() {
			fields = append(fields, strings.Split(f.Tag.Get("json"), ",")[0])
		}
		slices.Sort(fields)
		if got := slices.Sorted(maps.Keys(schema.Properties)); !slices.Equal(got, fields) {
			t.Errorf("%s: schema properties %v, reader fields %v", file, got, fields)
		}
	}
}
