package compare

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// jsonNames lists the JSON names of t's fields, following embedded structs.
func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if f.Anonymous && name == "" {
			out = append(out, jsonNames(f.Type)...)
		} else if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestSchema keeps docs/schema/compare.schema.json in step with Result.
func TestSchema(t *testing.T) {
	data, err := os.ReadFile("../docs/schema/compare.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	at := func(path ...string) []string {
		node := schema
		for _, p := range path {
			node = node[p].(map[string]any)
		}
		return slices.Sorted(maps.Keys(node["properties"].(map[string]any)))
	}
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
	}
	for _, tt := range tests {
		if got, want := at(tt.path...), jsonNames(reflect.TypeOf(tt.typ)); !slices.Equal(got, want) {
			t.Errorf("schema %v has %v; %T has %v", tt.path, got, tt.typ, want)
		}
	}
}
